// Synthetic EPCIS events for the query benchmark, in the shape the indexing job stores
// (EpcisEventRecord): a year of commissioning, packing, shipping and receiving over 20,000
// products at 500 sites, deterministic for a given count.

const DAY = 86_400_000;
const START = Date.parse("2025-01-01T00:00:00.000Z");
const STEPS = [
	["commissioning", "active", "ADD"],
	["packing", "in_progress", "ADD"],
	["shipping", "in_transit", "OBSERVE"],
	["receiving", "in_progress", "OBSERVE"],
	["storing", "sellable_not_accessible", "OBSERVE"],
	["dispensing", "dispensed", "DELETE"],
];
const COMPANIES = ["0614141", "0355154", "4012345", "0399999", "9521141"];

/** A small fast PRNG (mulberry32), so every run stores the same events. */
function random(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export const product = (n) => `${COMPANIES[n % COMPANIES.length]}.${String(100000 + (n % 20000)).padStart(6, "0")}`;
export const sgtin = (n) => `urn:epc:id:sgtin:${product(n)}.${n}`;
export const site = (n) => `urn:epc:id:sgln:${COMPANIES[n % COMPANIES.length]}.${String(n % 500).padStart(5, "0")}.0`;
const sscc = (n) => `urn:epc:id:sscc:${COMPANIES[n % COMPANIES.length]}.${String(n).padStart(10, "0")}`;

/**
 * `count` events for `tenantId`, 100 per message, in batches of `batch`. Each serial number
 * (sgtin(n)) passes through the six steps a few days apart, so an EPC has six events.
 */
export function* benchEvents(tenantId, count, batch = 1000) {
	const next = random(42);
	let out = [];
	for (let i = 0; i < count; i++) {
		const item = Math.floor(i / STEPS.length);
		const step = i % STEPS.length;
		const [bizStep, disposition, action] = STEPS[step];
		const time = START + Math.floor(next() * 330 * DAY) + step * 3 * DAY;
		const epcs = [sgtin(item * 2), sgtin(item * 2 + 1)];
		const values = epcs.map((value) => ({ kind: "epc", type: "", value }));
		if (step === 1) values.push({ kind: "parentID", type: "", value: sscc(item) });
		if (step === 2 || step === 3) {
			values.push({ kind: "bizTransaction", type: "po", value: `urn:epcglobal:cbv:bt:0399999000005:PO-${item}` });
			values.push({ kind: "source", type: "owning_party", value: `urn:epc:id:pgln:${COMPANIES[item % 5]}.00000` });
			values.push({ kind: "destination", type: "location", value: site(item + 7) });
		}
		const readPoint = site(item + step);
		const eventTime = new Date(time).toISOString();
		out.push({
			tenantId,
			sourceMessageId: `msg_${String(Math.floor(i / 100) + 1).padStart(6, "0")}`,
			eventIndex: i % 100,
			type: step === 1 ? "AggregationEvent" : "ObjectEvent",
			eventTime: new Date(time),
			recordTime: new Date(START + 365 * DAY),
			action,
			bizStep,
			disposition,
			readPoint,
			bizLocation: readPoint,
			transformationId: null,
			eventId: `urn:uuid:00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
			values,
			event: {
				type: step === 1 ? "AggregationEvent" : "ObjectEvent",
				eventTime,
				eventTimeZoneOffset: "+00:00",
				eventID: `urn:uuid:00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
				...(step === 1 ? { parentID: sscc(item), childEPCs: epcs } : { epcList: epcs }),
				action,
				bizStep,
				disposition,
				readPoint: { id: readPoint },
				bizLocation: { id: readPoint },
			},
		});
		if (out.length === batch) {
			yield out;
			out = [];
		}
	}
	if (out.length > 0) yield out;
}
