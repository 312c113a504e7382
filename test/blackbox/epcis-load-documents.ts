/**
 * The documents and settings of the EPCIS load files (epcis-load.test.ts, on both stores, and
 * epcis-validate-load.test.ts, on SQLite): the costliest single events at `maxEventLength`.
 */
const MB = 1024 * 1024;
/** `maxEventLength` of @as2kit/core's DEFAULT_EPCIS_LIMITS. */
export const MAX_EVENT_LENGTH = 8 * MB;
/**
 * A frozen server is given up on after this, so that a regression fails rather than hangs.
 * Generous: on PostgreSQL at load 15-20 on 2 cores, an 8 MB event (about 5 s of CPU) took
 * over 50 s of wall time, and the tests' own limit is HANG_MS.
 */
export const GIVE_UP_MS = 240_000;
export const HANG_MS = 300_000;

/**
 * An EPCIS 1.2 document of one ObjectEvent of just under `maxEventLength`, the event's bulk
 * being `unit` repeated (inside `<epcList>` when `inEpcList`, else as user extension elements
 * after `action`). `eventId` tells the indexed event apart.
 */
function oneEventDocument(eventId: string, unit: string, inEpcList = false): string {
	const head = `<?xml version="1.0" encoding="UTF-8"?><epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:1" xmlns:ex="https://example.com/epcis-load" schemaVersion="1.2" creationDate="2013-06-04T14:59:02.099+02:00"><EPCISBody><EventList>`;
	const open = `<ObjectEvent><eventTime>2013-06-08T14:58:56.591Z</eventTime><eventTimeZoneOffset>+02:00</eventTimeZoneOffset><baseExtension><eventID>${eventId}</eventID></baseExtension>`;
	const epcs = (list: string) => `<epcList>${list}</epcList><action>OBSERVE</action>`;
	const close = "</ObjectEvent>";
	const tail = "</EventList></EPCISBody></epcis:EPCISDocument>";
	const room = MAX_EVENT_LENGTH - 1024 - open.length - epcs("").length - close.length;
	const bulk = unit.repeat(Math.floor(room / unit.length));
	return `${head}${open}${inEpcList ? epcs(bulk) : `${epcs("")}${bulk}`}${close}${tail}`;
}

/**
 * The costliest events at the limit, measured per byte (2-core host, before the fix, on the
 * event loop): ~700,000 one-letter EPCs take the validator ~5 s, each checked against the
 * schema and the EPC URI syntax; ~570,000 small extension elements take the reader ~3 s; and
 * extension elements nested 60 deep make the costliest record to hand back and store (a
 * deeply nested 5 MB JSON event).
 */
export const WORST_TO_VALIDATE = (eventId: string) => oneEventDocument(eventId, "<epc>a</epc>", true);
export const WORST_TO_READ = (eventId: string) => oneEventDocument(eventId, "<ex:a>1</ex:a>");
export const WORST_TO_STORE = (eventId: string) =>
	oneEventDocument(eventId, `${"<ex:a>".repeat(60)}${"</ex:a>".repeat(60)}`);

export const SMALL_DOCUMENT = `<?xml version="1.0" encoding="UTF-8"?><epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:1" schemaVersion="1.2" creationDate="2013-06-04T14:59:02.099+02:00"><EPCISBody><EventList><ObjectEvent><eventTime>2013-06-08T14:58:56.591Z</eventTime><eventTimeZoneOffset>+02:00</eventTimeZoneOffset><epcList><epc>urn:epc:id:sgtin:0614141.107346.2017</epc></epcList><action>OBSERVE</action></ObjectEvent></EventList></EPCISBody></epcis:EPCISDocument>`;

/**
 * Enterprise: no rate limit and a plan size far above the documents. One EPCIS thread and no
 * queue: two places in all, so the bound is reached with three stalled uploads. The time budget
 * of a document is wall time (26 s for 8 MB by default), which an 8 MB event's seconds of CPU
 * exceeded on a 2-core machine at load 15 (the answer: not read, 0 events): these tests are
 * about the event loop, the budget's own are node/epcis-thread-pool.test.ts.
 */
export const EPCIS_LOAD_ENV = {
	AS2_DEFAULT_PLAN: "enterprise",
	AS2_EPCIS_THREADS: "1",
	AS2_EPCIS_QUEUE: "0",
	AS2_EPCIS_BUDGET_SECONDS: "600",
};
