/**
 * Issue #16, defects 2 and 11, for EPCIS: the validator reads one event whole, and an event may
 * be 8 MB (`maxEventLength`), which takes seconds of CPU in one synchronous step. On the event
 * loop that stalled `/health`, `/as2/receive` and every job for as long, on
 * `POST /v1/epcis/validate` and in the indexing job of every XML payload; and nothing bounded
 * how many validations ran at once. The built server runs that work on a bounded pool of
 * worker threads (node/epcis-thread-pool.ts): the worst single event at the limit, on each path,
 * leaves `/health` answering (hostile-input-health.ts: median under 250 ms, every probe under
 * 2.5 s, or more after a slow idle probe), and validations beyond the pool's places and queue are refused at once with 503 and
 * Retry-After.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, type Registered, register } from "./clients.ts";
import { expectHealthy, watchHealth } from "./hostile-input-health.ts";

const MB = 1024 * 1024;
/** `maxEventLength` of @as2kit/core's DEFAULT_EPCIS_LIMITS. */
const MAX_EVENT_LENGTH = 8 * MB;
/**
 * A frozen server is given up on after this, so that a regression fails rather than hangs.
 * Generous: on PostgreSQL at load 15-20 on 2 cores, an 8 MB event (about 5 s of CPU) took
 * over 50 s of wall time, and the tests' own limit is HANG_MS.
 */
const GIVE_UP_MS = 240_000;
const HANG_MS = 300_000;
const PEER = "EPCISLOADPEER";

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
const WORST_TO_VALIDATE = (eventId: string) => oneEventDocument(eventId, "<epc>a</epc>", true);
const WORST_TO_READ = (eventId: string) => oneEventDocument(eventId, "<ex:a>1</ex:a>");
const WORST_TO_STORE = (eventId: string) => oneEventDocument(eventId, `${"<ex:a>".repeat(60)}${"</ex:a>".repeat(60)}`);

const SMALL_DOCUMENT = `<?xml version="1.0" encoding="UTF-8"?><epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:1" schemaVersion="1.2" creationDate="2013-06-04T14:59:02.099+02:00"><EPCISBody><EventList><ObjectEvent><eventTime>2013-06-08T14:58:56.591Z</eventTime><eventTimeZoneOffset>+02:00</eventTimeZoneOffset><epcList><epc>urn:epc:id:sgtin:0614141.107346.2017</epc></epcList><action>OBSERVE</action></ObjectEvent></EventList></EPCISBody></epcis:EPCISDocument>`;

let server: BuiltServer;
let user: Registered;
let tenantAs2Id: string;

beforeAll(async () => {
	// Enterprise: no rate limit and a plan size far above the documents. One EPCIS thread and no
	// queue: two places in all, so the bound is reached with three stalled uploads. The time
	// budget of a document is wall time (26 s for 8 MB by default), which an 8 MB event's
	// seconds of CPU exceeded on a 2-core machine at load 15 (the answer: not read, 0 events):
	// these tests are about the event loop, the budget's own are node/epcis-thread-pool.test.ts.
	server = await startBuiltServer({
		env: {
			AS2_DEFAULT_PLAN: "enterprise",
			AS2_EPCIS_THREADS: "1",
			AS2_EPCIS_QUEUE: "0",
			AS2_EPCIS_BUDGET_SECONDS: "600",
		},
	});
	user = await register(server.base);
	tenantAs2Id = (await call(server.base, "GET", `/v1/tenants/${user.tenantId}`, { token: user.token })).json.data
		.as2_id;
	const partner = await call(server.base, "POST", "/v1/partners", {
		token: user.token,
		body: { name: "EPCIS Load Peer", as2_id: PEER, url: "https://peer.example/as2", sign: false, encrypt: false },
	});
	expect(partner.status, partner.text).toBe(201);
});
afterAll(() => server?.stop());

describe("EPCIS work never holds the event loop", () => {
	it("validates the worst single event at maxEventLength while /health keeps answering", {
		timeout: HANG_MS,
	}, async () => {
		const document = WORST_TO_VALIDATE("ev:validate");
		expect(document.length).toBeGreaterThan(MAX_EVENT_LENGTH - 2048);
		const health = await watchHealth(server.base);
		const answer = await call(server.base, "POST", "/v1/epcis/validate", {
			token: user.token,
			body: { document, validation_rules: ["schema_compliance", "business_rules"] },
			timeoutMs: GIVE_UP_MS,
		});
		const summary = await health.stop();
		expect(answer.status, answer.text.slice(0, 300)).toBe(200);
		// Read whole and judged: the one-letter EPCs are not EPC URIs, and nothing else is wrong.
		expect(answer.json, JSON.stringify(answer.json.errors).slice(0, 500)).toMatchObject({
			epcis_version: "1.2",
			event_count: 1,
		});
		expect(answer.json.errors.map((e: { code: string }) => e.code)).toContain("BR_INVALID_EPC");
		expectHealthy(summary, "an 8 MB event on /v1/epcis/validate");
		server.assertAlive();
	});

	for (const [what, document] of [
		["the slowest event to read", WORST_TO_READ],
		["the costliest event to store", WORST_TO_STORE],
	] as const) {
		it(`indexes ${what} at maxEventLength, from an inbound AS2 payload, while /health keeps answering`, {
			timeout: HANG_MS,
		}, async () => {
			const eventId = `ev:inbound-${what.split(" ")[1]}`;
			const health = await watchHealth(server.base);
			const received = await fetch(`${server.base}/as2/receive`, {
				method: "POST",
				headers: {
					"as2-to": tenantAs2Id,
					"as2-from": PEER,
					"as2-version": "1.2",
					"message-id": `<epcis-load-${Date.now()}@peer.example>`,
					"content-type": "application/xml",
				},
				body: document(eventId),
				signal: AbortSignal.timeout(GIVE_UP_MS),
			});
			expect(received.status, await received.text()).toBe(200);
			await indexed(eventId);
			expectHealthy(await health.stop(), `${what} indexed from /as2/receive`);
			const query = await call(server.base, "POST", "/v1/epcis/query", {
				token: user.token,
				body: { query_type: "SimpleEventQuery", parameters: { EQ_eventID: eventId } },
				timeoutMs: GIVE_UP_MS,
			});
			expect(query.json.data).toEqual([expect.objectContaining({ eventID: eventId, type: "ObjectEvent" })]);
			server.assertAlive();
		});
	}
});

/**
 * Waits (bounded) until the event is indexed. The page asked for lies past the one event, so
 * the answer counts it without carrying it: the 8 MB event is fetched once, after the watch.
 */
async function indexed(eventId: string): Promise<void> {
	const deadline = Date.now() + GIVE_UP_MS;
	for (;;) {
		const query = await call(server.base, "POST", "/v1/epcis/query?page=2&per_page=1", {
			token: user.token,
			body: { query_type: "SimpleEventQuery", parameters: { EQ_eventID: eventId } },
		});
		expect(query.status, query.text).toBe(200);
		if (query.json.pagination.total === 1) return;
		if (Date.now() > deadline) throw new Error(`${eventId} was not indexed within ${GIVE_UP_MS} ms`);
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}

describe("EPCIS work at once is bounded", () => {
	const boundary = "epcis-load-boundary";
	const document = SMALL_DOCUMENT.slice(0, 300);
	const head = (length: number) =>
		[
			"POST /v1/epcis/validate HTTP/1.1",
			"Host: 127.0.0.1",
			`Authorization: Bearer ${user.token}`,
			`Content-Type: multipart/form-data; boundary=${boundary}`,
			`Content-Length: ${length}`,
			"Connection: close",
			"",
			"",
		].join("\r\n");
	const partHead = `--${boundary}\r\nContent-Disposition: form-data; name="document"; filename="events.xml"\r\nContent-Type: application/xml\r\n\r\n`;

	it("answers 503 with Retry-After past the pool's places, and serves again once they are free", {
		timeout: HANG_MS,
	}, async () => {
		// Three uploads that send the start of a document and then wait, for two places: two hold
		// them until released, the third is refused at once and told when to come back.
		const first = partHead + document;
		const rest = `${SMALL_DOCUMENT.slice(300)}\r\n--${boundary}--\r\n`;
		const held = [0, 1, 2].map(() => heldUpload(server.port, head(Buffer.byteLength(first + rest)), first, rest));
		let refused: { status: number | null; raw: string };
		try {
			refused = await Promise.race(held.map((upload) => upload.answer));
		} finally {
			for (const upload of held) upload.release();
		}
		expect(refused.status, refused.raw.slice(0, 300)).toBe(503);
		expect(refused.raw).toMatch(/\r\nretry-after: 2\r\n/i);
		expect(refused.raw).toContain('"code":"SERVICE_UNAVAILABLE"');
		const answers = await Promise.all(held.map((upload) => upload.answer));
		expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 503]);
		const after = await call(server.base, "POST", "/v1/epcis/validate", {
			token: user.token,
			body: { document: SMALL_DOCUMENT },
		});
		expect(after.status, after.text).toBe(200);
		expect(after.json.event_count).toBe(1);
		server.assertAlive();
	});
});

/**
 * A request over a raw socket that sends `head` and `first`, then waits for `release()` to send
 * `rest`; `answer` is what the server sent back once it closed the connection (bounded wait).
 */
function heldUpload(port: number, head: string, first: string, rest: string) {
	let release = () => {};
	const released = new Promise<void>((resolve) => (release = resolve));
	const answer = new Promise<{ status: number | null; raw: string }>((resolve) => {
		const socket = connect({ host: "127.0.0.1", port });
		const received: Buffer[] = [];
		const timer = setTimeout(() => socket.destroy(), GIVE_UP_MS);
		const done = () => {
			clearTimeout(timer);
			const raw = Buffer.concat(received).toString("latin1");
			resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]) || null, raw });
		};
		socket.on("data", (chunk) => received.push(chunk));
		socket.on("error", done);
		socket.on("close", done);
		socket.on("connect", () => {
			socket.write(head + first);
			void released.then(() => socket.write(rest));
		});
	});
	return { release, answer };
}
