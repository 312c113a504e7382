import type {
	As2Store,
	EpcisEventFilter,
	EpcisEventRecord,
	EpcisEventValue,
	EpcisQueryOptions,
} from "@as2kit/core/store";
import { expect } from "vitest";
import { at } from "./fixtures.ts";
import type { ConformanceTest } from "./types.ts";

/** An event of message `msg` at position `index`; `eventTime` in seconds after T0. */
function event(
	msg: string,
	index: number,
	overrides: Partial<Omit<EpcisEventRecord, "eventTime">> & { eventTime?: number } = {},
): EpcisEventRecord {
	const { eventTime = index, ...rest } = overrides;
	return {
		tenantId: "tnt_000001",
		sourceMessageId: msg,
		eventIndex: index,
		type: "ObjectEvent",
		eventTime: at(eventTime),
		recordTime: at(1000),
		action: "OBSERVE",
		bizStep: "shipping",
		disposition: "in_transit",
		readPoint: "urn:epc:id:sgln:0614141.00777.0",
		bizLocation: null,
		transformationId: null,
		eventId: `${msg}#${index}`,
		values: [],
		event: { type: "ObjectEvent", marker: `${msg}#${index}` },
		...rest,
	};
}

const v = (kind: EpcisEventValue["kind"], value: string, type = ""): EpcisEventValue => ({ kind, type, value });
const options = (overrides: Partial<EpcisQueryOptions> = {}): EpcisQueryOptions => ({
	orderBy: "eventTime",
	direction: "asc",
	page: { page: 1, perPage: 100 },
	...overrides,
});

/** Markers of the matching events, in the order returned. */
async function markers(
	store: As2Store,
	filter: EpcisEventFilter,
	opts: Partial<EpcisQueryOptions> = {},
	tenantId = "tnt_000001",
): Promise<string[]> {
	const page = await store.epcis.queryEvents(tenantId, filter, options(opts));
	return page.items.map((item) => String(item.event.marker));
}

export const epcisTests = {
	"epcis - an event is stored once per message and index, scoped to its tenant": async ({ store }) => {
		expect(await store.epcis.lastEventIndex("tnt_000001", "msg_000001")).toBe(-1);
		expect(await store.epcis.insertEvents([event("msg_000001", 0), event("msg_000001", 1)])).toBe(2);
		// A re-run after a crash: the stored events stay as they are, the missing one is added.
		const again = [event("msg_000001", 0, { bizStep: "receiving" }), event("msg_000001", 1), event("msg_000001", 2)];
		expect(await store.epcis.insertEvents(again)).toBe(1);
		expect(await store.epcis.lastEventIndex("tnt_000001", "msg_000001")).toBe(2);
		await store.epcis.insertEvents([event("msg_000009", 0, { tenantId: "tnt_000002", values: [v("epc", "urn:x")] })]);
		const page = await store.epcis.queryEvents("tnt_000001", {}, options());
		expect(page.total).toBe(3);
		expect(page.items.map((i) => [i.sourceMessageId, i.eventIndex])).toEqual([
			["msg_000001", 0],
			["msg_000001", 1],
			["msg_000001", 2],
		]);
		expect(page.items[0]).toEqual({
			sourceMessageId: "msg_000001",
			eventIndex: 0,
			recordTime: at(1000),
			event: { type: "ObjectEvent", marker: "msg_000001#0" },
		});
		expect(await markers(store, { bizSteps: ["receiving"] })).toEqual([]);
		expect(await markers(store, { values: [{ kinds: ["epc"], match: { equals: ["urn:x"] } }] })).toEqual([]);
		expect(await markers(store, {}, {}, "tnt_000002")).toEqual(["msg_000009#0"]);
		expect(await store.epcis.lastEventIndex("tnt_000002", "msg_000001")).toBe(-1);
	},

	"epcis - each column condition keeps the events with one of its values": async ({ store }) => {
		await store.epcis.insertEvents([
			event("m", 0, { type: "AggregationEvent", action: "ADD", bizStep: "packing", disposition: "in_progress" }),
			event("m", 1, { type: "ObjectEvent", action: "OBSERVE", bizStep: "shipping", eventId: "urn:uuid:1" }),
			event("m", 2, {
				type: "TransformationEvent",
				action: null,
				bizStep: "commissioning",
				disposition: "active",
				transformationId: "urn:t:1",
				bizLocation: "urn:epc:id:sgln:0614141.00888.0",
			}),
			event("m", 3, { action: "DELETE", bizStep: null, disposition: null, readPoint: null }),
		]);
		expect(await markers(store, { types: ["AggregationEvent", "TransformationEvent"] })).toEqual(["m#0", "m#2"]);
		expect(await markers(store, { actions: ["ADD", "DELETE"] })).toEqual(["m#0", "m#3"]);
		expect(await markers(store, { bizSteps: ["shipping", "commissioning"] })).toEqual(["m#1", "m#2"]);
		expect(await markers(store, { dispositions: ["in_transit"] })).toEqual(["m#1"]);
		expect(await markers(store, { transformationIds: ["urn:t:1"] })).toEqual(["m#2"]);
		expect(await markers(store, { eventIds: ["urn:uuid:1", "m#3"] })).toEqual(["m#1", "m#3"]);
		expect(await markers(store, { bizLocation: [{ equals: ["urn:epc:id:sgln:0614141.00888.0"] }] })).toEqual(["m#2"]);
		expect(await markers(store, { types: ["ObjectEvent"], bizSteps: ["shipping"], actions: ["ADD"] })).toEqual([]);
		expect(await markers(store, { bizSteps: [] })).toEqual([]);
	},

	"epcis - string matches are equality or a prefix, and every entry must hold": async ({ store }) => {
		const points = [
			"urn:epc:id:sgln:0614141.00777.0",
			"urn:epc:id:sgln:0614141.00777.1",
			"urn:epc:id:sgln:0614141.007770.0",
			"urn:epc:id:sgln:0614142.00777.0",
			"https://id.gs1.org/414/0614141007770/254/2",
		];
		await store.epcis.insertEvents(points.map((readPoint, i) => event("m", i, { readPoint })));
		expect(await markers(store, { readPoint: [{ equals: ["urn:epc:id:sgln:0614141.00777.1"] }] })).toEqual(["m#1"]);
		expect(await markers(store, { readPoint: [{ prefixes: ["urn:epc:id:sgln:0614141.00777."] }] })).toEqual([
			"m#0",
			"m#1",
		]);
		expect(
			await markers(store, {
				readPoint: [{ equals: ["urn:epc:id:sgln:0614142.00777.0"], prefixes: ["https://id.gs1.org/414/"] }],
			}),
		).toEqual(["m#3", "m#4"]);
		expect(
			await markers(store, {
				readPoint: [{ prefixes: ["urn:epc:id:sgln:0614141."] }, { equals: ["urn:epc:id:sgln:0614141.007770.0"] }],
			}),
		).toEqual(["m#2"]);
		expect(await markers(store, { readPoint: [{ prefixes: [""] }] })).toHaveLength(5);
		expect(await markers(store, { readPoint: [{}] })).toEqual([]);
	},

	"epcis - time bounds are inclusive (gte, lte) or exclusive (lt)": async ({ store }) => {
		await store.epcis.insertEvents([
			event("m", 0, { eventTime: 10, recordTime: at(100) }),
			event("m", 1, { eventTime: 20, recordTime: at(200) }),
			event("m", 2, { eventTime: 30, recordTime: at(300) }),
		]);
		expect(await markers(store, { eventTime: { gte: at(20) } })).toEqual(["m#1", "m#2"]);
		expect(await markers(store, { eventTime: { lt: at(30) } })).toEqual(["m#0", "m#1"]);
		expect(await markers(store, { eventTime: { lte: at(30) } })).toEqual(["m#0", "m#1", "m#2"]);
		expect(await markers(store, { eventTime: { gte: at(10), lt: at(20) } })).toEqual(["m#0"]);
		expect(await markers(store, { recordTime: { gte: at(150), lte: at(200) } })).toEqual(["m#1"]);
		expect(await markers(store, { eventTime: { gte: at(25) }, recordTime: { lt: at(300) } })).toEqual([]);
	},

	"epcis - value conditions look up their kinds and type; OR within one, AND across": async ({ store }) => {
		await store.epcis.insertEvents([
			event("m", 0, {
				values: [v("epc", "urn:epc:id:sgtin:0614141.107346.2017"), v("bizTransaction", "urn:bt:PO-1", "po")],
			}),
			event("m", 1, {
				values: [v("parentID", "urn:epc:id:sscc:0614141.1234567890"), v("epc", "urn:epc:id:sgtin:0614141.107346.2018")],
			}),
			event("m", 2, {
				values: [
					v("inputEPC", "urn:epc:id:sgtin:0614141.107346.2017"),
					v("outputEPCClass", "urn:epc:class:lgtin:4012345.012345.998877"),
					v("bizTransaction", "urn:bt:PO-1", "desadv"),
					v("source", "urn:epc:id:pgln:0614141.00000", "owning_party"),
				],
			}),
			event("m", 3, { values: [] }),
		]);
		const match = (kinds: EpcisEventValue["kind"][], equals: string[], prefixes: string[] = [], type?: string) => ({
			kinds,
			match: { equals, prefixes },
			...(type === undefined ? {} : { type }),
		});
		expect(await markers(store, { values: [match(["epc"], ["urn:epc:id:sgtin:0614141.107346.2017"])] })).toEqual([
			"m#0",
		]);
		expect(await markers(store, { values: [match(["epc"], [], ["urn:epc:id:sgtin:0614141.107346."])] })).toEqual([
			"m#0",
			"m#1",
		]);
		expect(
			await markers(store, {
				values: [match(["epc", "parentID", "inputEPC", "outputEPC"], ["urn:epc:id:sgtin:0614141.107346.2017"])],
			}),
		).toEqual(["m#0", "m#2"]);
		expect(await markers(store, { values: [match(["outputEPCClass"], [], ["urn:epc:class:lgtin:4012345."])] })).toEqual(
			["m#2"],
		);
		expect(await markers(store, { values: [match(["bizTransaction"], ["urn:bt:PO-1"], [], "po")] })).toEqual(["m#0"]);
		expect(await markers(store, { values: [match(["bizTransaction"], ["urn:bt:PO-1"])] })).toEqual(["m#0", "m#2"]);
		expect(
			await markers(store, {
				values: [
					match(["bizTransaction"], ["urn:bt:PO-1"], [], "desadv"),
					match(["source"], ["urn:epc:id:pgln:0614141.00000"], [], "owning_party"),
				],
			}),
		).toEqual(["m#2"]);
		expect(
			await markers(store, {
				values: [match(["epc"], ["urn:epc:id:sgtin:0614141.107346.2018"]), match(["parentID"], ["urn:nothing"])],
			}),
		).toEqual([]);
		expect(await markers(store, { values: [match(["epc"], [])] })).toEqual([]);
	},

	"epcis - orders by eventTime or recordTime either way, ties in insertion order, and pages": async ({ store }) => {
		await store.epcis.insertEvents([
			event("m", 0, { eventTime: 30, recordTime: at(100) }),
			event("m", 1, { eventTime: 10, recordTime: at(300) }),
			event("m", 2, { eventTime: 20, recordTime: at(200) }),
			event("m", 3, { eventTime: 20, recordTime: at(200) }),
		]);
		expect(await markers(store, {})).toEqual(["m#1", "m#2", "m#3", "m#0"]);
		expect(await markers(store, {}, { direction: "desc" })).toEqual(["m#0", "m#3", "m#2", "m#1"]);
		expect(await markers(store, {}, { orderBy: "recordTime" })).toEqual(["m#0", "m#2", "m#3", "m#1"]);
		expect(await markers(store, {}, { orderBy: "recordTime", direction: "desc" })).toEqual([
			"m#1",
			"m#3",
			"m#2",
			"m#0",
		]);
		const second = await store.epcis.queryEvents("tnt_000001", {}, options({ page: { page: 2, perPage: 3 } }));
		expect(second.total).toBe(4);
		expect(second.items.map((i) => i.event.marker)).toEqual(["m#0"]);
		const beyond = await store.epcis.queryEvents("tnt_000001", {}, options({ page: { page: 3, perPage: 3 } }));
		expect(beyond).toEqual({ items: [], total: 4 });
	},

	"epcis - a limit keeps only the first events in order, for the total and every page": async ({ store }) => {
		await store.epcis.insertEvents([0, 1, 2, 3, 4].map((i) => event("m", i, { eventTime: 10 - i })));
		const first = await store.epcis.queryEvents(
			"tnt_000001",
			{},
			options({ limit: 3, direction: "desc", page: { page: 1, perPage: 2 } }),
		);
		expect(first.total).toBe(3);
		expect(first.items.map((i) => i.event.marker)).toEqual(["m#0", "m#1"]);
		const second = await store.epcis.queryEvents(
			"tnt_000001",
			{},
			options({ limit: 3, direction: "desc", page: { page: 2, perPage: 2 } }),
		);
		expect(second.items.map((i) => i.event.marker)).toEqual(["m#2"]);
		const all = await store.epcis.queryEvents("tnt_000001", { bizSteps: ["shipping"] }, options({ limit: 50 }));
		expect(all.total).toBe(5);
	},

	"epcis - deleteEvents removes one message's events and their values": async ({ store }) => {
		const epc = [v("epc", "urn:epc:id:sgtin:0614141.107346.1")];
		await store.epcis.insertEvents([event("a", 0, { values: epc }), event("a", 1), event("b", 0, { values: epc })]);
		await store.epcis.insertEvents([event("a", 0, { tenantId: "tnt_000002" })]);
		expect(await store.epcis.deleteEvents("tnt_000001", "a")).toBe(2);
		expect(await markers(store, {})).toEqual(["b#0"]);
		expect(await markers(store, { values: [{ kinds: ["epc"], match: { equals: [epc[0]!.value] } }] })).toEqual(["b#0"]);
		expect(await markers(store, {}, {}, "tnt_000002")).toEqual(["a#0"]);
		expect(await store.epcis.lastEventIndex("tnt_000001", "a")).toBe(-1);
		// Indexed again from the start, the values come back with the events (equal times: insertion order).
		expect(await store.epcis.insertEvents([event("a", 0, { values: epc })])).toBe(1);
		expect(await markers(store, { values: [{ kinds: ["epc"], match: { equals: [epc[0]!.value] } }] })).toEqual([
			"b#0",
			"a#0",
		]);
	},

	"epcis - a document record is created, then replaced, per tenant and message": async ({ store }) => {
		const record = {
			tenantId: "tnt_000001",
			messageId: "msg_000001",
			status: "indexing" as const,
			version: "2.0" as const,
			eventCount: 0,
			skippedEvents: 0,
			errorCode: null,
			errorMessage: null,
			createdAt: at(0),
			updatedAt: at(0),
		};
		await store.epcis.putDocument(record);
		expect(await store.epcis.getDocument("tnt_000001", "msg_000001")).toEqual(record);
		const failed = {
			...record,
			status: "failed" as const,
			eventCount: 3,
			skippedEvents: 1,
			errorCode: "EPCIS_PARSE_ERROR",
			errorMessage: "unclosed element",
			updatedAt: at(5),
		};
		await store.epcis.putDocument(failed);
		expect(await store.epcis.getDocument("tnt_000001", "msg_000001")).toEqual(failed);
		expect(await store.epcis.getDocument("tnt_000002", "msg_000001")).toBeNull();
	},

	"epcis - writes join the caller's transaction": async ({ store }) => {
		await expect(
			store.transaction(async (tx) => {
				await tx.epcis.insertEvents([event("m", 0, { values: [v("epc", "urn:x")] })]);
				throw new Error("rolled back");
			}),
		).rejects.toThrow("rolled back");
		expect(await markers(store, {})).toEqual([]);
		expect(await store.epcis.insertEvents([event("m", 0, { values: [v("epc", "urn:x")] })])).toBe(1);
		expect(await markers(store, { values: [{ kinds: ["epc"], match: { equals: ["urn:x"] } }] })).toEqual(["m#0"]);
	},
} satisfies Record<string, ConformanceTest>;
