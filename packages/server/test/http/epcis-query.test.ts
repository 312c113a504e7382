import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Background } from "../../src/service/jobs/background.ts";
import { DOCUMENT_12, DOCUMENT_20 } from "../helpers/epcis-documents.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";
import { eventually, startWorker } from "../helpers/worker.ts";

/**
 * SimpleEventQuery over documents sent as messages in the test environment: every parameter,
 * combinations and wildcards return exactly the expected events (by eventID ev:<n>), with
 * pagination, ordering and limits; another tenant sees none of them.
 */
let t: TestApp;
let worker: Background;
let key: string;
let readOnly: string;
let partnersOnly: string;
let other: string;
let tenantId: string;
const sent: Record<string, string> = {};

async function send(token: string, content: string, contentType = "application/xml"): Promise<string> {
	const response = await t.call("POST", "/v1/messages", {
		token,
		body: { partner_id: "prt_000001", content_type: contentType, payload: { content } },
	});
	if (response.status !== 202) throw new Error(`send: ${response.status} ${response.text}`);
	return response.json.data.id;
}

async function indexed(tenant: string, messageId: string) {
	return eventually(async () => {
		const document = await t.store.epcis.getDocument(tenant, messageId);
		return document && document.status !== "indexing" ? document : null;
	}, `${messageId} indexed`);
}

beforeAll(async () => {
	t = createTestApp({ defaultPlan: "enterprise" });
	worker = startWorker(t);
	const owner = await register(t, "Shipper");
	tenantId = owner.tenantId;
	key = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "test",
		permissions: ["*"],
	});
	readOnly = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		permissions: ["messages:read"],
	});
	partnersOnly = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		permissions: ["partners:read"],
	});
	await t.call("POST", "/v1/partners", {
		token: key,
		body: { name: "Buyer", as2_id: "BUYER", url: "https://buyer.example/as2", mdn_mode: "sync" },
	});
	sent.doc20 = await send(key, DOCUMENT_20);
	expect(await indexed(tenantId, sent.doc20)).toMatchObject({ status: "indexed", version: "2.0", eventCount: 6 });
	// An hour later (once the first jobs are done: a jump of the clock expires running leases).
	t.clock.advance(3600);
	sent.doc12 = await send(key, DOCUMENT_12);
	expect(await indexed(tenantId, sent.doc12)).toMatchObject({ status: "indexed", version: "1.2", eventCount: 2 });
	// Another account sends the same document: its events are its own.
	const stranger = await register(t, "Stranger");
	other = await createKey(t, stranger.token, {
		scope: "tenant",
		tenant_id: stranger.tenantId,
		environment: "test",
		permissions: ["*"],
	});
	await t.call("POST", "/v1/partners", {
		token: other,
		body: { name: "Buyer", as2_id: "BUYER", url: "https://buyer.example/as2" },
	});
	const theirs = (
		await t.call("POST", "/v1/messages", {
			token: other,
			body: { partner_id: "prt_000002", content_type: "application/xml", payload: { content: DOCUMENT_20 } },
		})
	).json.data.id as string;
	await indexed(stranger.tenantId, theirs);
});
afterAll(async () => {
	await worker.stop();
	await t.close();
});

const query = (
	parameters: Record<string, unknown>,
	options: { token?: string; page?: string; queryType?: string } = {},
) =>
	t.call("POST", `/v1/epcis/query${options.page ?? "?per_page=100"}`, {
		token: options.token ?? key,
		body: { query_type: options.queryType ?? "SimpleEventQuery", parameters },
	});

/** eventIDs found, sorted unless `ordered`. */
async function ids(parameters: Record<string, unknown>, ordered = false): Promise<string[]> {
	const response = await query(parameters);
	expect(response.status, response.text).toBe(200);
	const found = response.json.data.map((e: { eventID: string }) => e.eventID) as string[];
	return ordered ? found : found.sort();
}
const ev = (...n: number[]) => n.map((x) => `ev:${x}`).sort();

describe("the documents used", () => {
	it("are valid EPCIS", async () => {
		for (const document of [DOCUMENT_20, DOCUMENT_12]) {
			const response = await t.call("POST", "/v1/epcis/validate", {
				token: key,
				body: { document, validation_rules: ["schema_compliance", "business_rules"] },
			});
			expect(response.json.errors).toEqual([]);
		}
	});
});

describe("POST /v1/epcis/query: the events", () => {
	it("come in EPCIS 2.0 JSON form with recordTime and source_message_id, CBV values as bare words", async () => {
		const response = await query({ EQ_eventID: "ev:3" });
		expect(response.json.data).toEqual([
			{
				type: "ObjectEvent",
				eventTime: "2024-01-12T10:00:00.000Z",
				eventTimeZoneOffset: "+00:00",
				eventID: "ev:3",
				epcList: ["urn:epc:id:sscc:0614141.1234567890"],
				action: "OBSERVE",
				bizStep: "shipping",
				disposition: "in_transit",
				readPoint: { id: "urn:epc:id:sgln:0614141.00888.0" },
				bizTransactionList: [
					{ type: "po", bizTransaction: "urn:epcglobal:cbv:bt:0614141000005:PO-1" },
					{ type: "desadv", bizTransaction: "urn:epcglobal:cbv:bt:0614141000005:ASN-1" },
				],
				sourceList: [{ type: "owning_party", source: "urn:epc:id:pgln:0614141.00000" }],
				destinationList: [
					{ type: "owning_party", destination: "urn:epc:id:pgln:4012345.00000" },
					{ type: "location", destination: "urn:epc:id:sgln:4012345.00001.0" },
				],
				recordTime: "2026-03-01T09:00:00.000000Z",
				source_message_id: sent.doc20,
			},
		]);
		const [quantity] = (await query({ EQ_eventID: "ev:8" })).json.data;
		expect(quantity).toMatchObject({
			type: "ObjectEvent",
			action: "OBSERVE",
			quantityList: [{ epcClass: "urn:epc:idpat:sgtin:0614141.107346.*", quantity: 100 }],
			bizStep: "stocking",
			source_message_id: sent.doc12,
			recordTime: "2026-03-01T10:00:00.000000Z",
		});
	});

	it("are all the tenant's events without parameters, newest first", async () => {
		expect(await ids({}, true)).toEqual(["ev:8", "ev:7", "ev:6", "ev:5", "ev:4", "ev:3", "ev:2", "ev:1"]);
	});
});

describe("POST /v1/epcis/query: each parameter", () => {
	it("eventType", async () => {
		expect(await ids({ eventType: "ObjectEvent" })).toEqual(ev(1, 3, 7, 8));
		expect(await ids({ eventType: ["AggregationEvent", "TransformationEvent"] })).toEqual(ev(2, 4));
		expect(await ids({ eventType: ["TransactionEvent", "AssociationEvent"] })).toEqual(ev(5, 6));
	});

	it("GE_eventTime, LT_eventTime, LE_eventTime, in any time zone", async () => {
		expect(await ids({ GE_eventTime: "2024-01-12T10:00:00Z" })).toEqual(ev(3, 4, 5, 6, 7, 8));
		expect(await ids({ LT_eventTime: "2024-01-12T10:00:00Z" })).toEqual(ev(1, 2));
		expect(await ids({ LE_eventTime: "2024-01-12T10:00:00Z" })).toEqual(ev(1, 2, 3));
		expect(await ids({ LE_eventTime: "2024-01-12T12:00:00.000+02:00" })).toEqual(ev(1, 2, 3));
		// ev:2 is 2024-01-11T10:00+02:00, i.e. 08:00Z.
		expect(await ids({ GE_eventTime: "2024-01-11T09:00:00Z", LT_eventTime: "2024-01-13T10:00:00Z" })).toEqual(ev(3));
		expect(await ids({ GE_eventTime: "2024-01-11T08:00:00Z", LT_eventTime: "2024-01-11T08:00:00.001Z" })).toEqual(
			ev(2),
		);
	});

	it("GE_recordTime and LT_recordTime: when the message came", async () => {
		expect(await ids({ GE_recordTime: "2026-03-01T09:30:00Z" })).toEqual(ev(7, 8));
		expect(await ids({ LT_recordTime: "2026-03-01T09:30:00Z" })).toEqual(ev(1, 2, 3, 4, 5, 6));
		expect(await ids({ GE_recordTime: "2026-03-01T10:00:00Z", LE_recordTime: "2026-03-01T10:00:00Z" })).toEqual(
			ev(7, 8),
		);
	});

	it("EQ_action", async () => {
		expect(await ids({ EQ_action: "ADD" })).toEqual(ev(1, 2, 5, 6));
		expect(await ids({ EQ_action: ["OBSERVE", "DELETE"] })).toEqual(ev(3, 7, 8));
	});

	it("EQ_bizStep and EQ_disposition in URN, Web URI or bare-word form", async () => {
		for (const shipping of [
			"shipping",
			"urn:epcglobal:cbv:bizstep:shipping",
			"https://ref.gs1.org/cbv/BizStep-shipping",
		])
			expect(await ids({ EQ_bizStep: shipping }), shipping).toEqual(ev(3, 5));
		expect(await ids({ EQ_bizStep: ["urn:epcglobal:cbv:bizstep:packing", "stocking"] })).toEqual(ev(2, 8));
		expect(await ids({ EQ_disposition: "urn:epcglobal:cbv:disp:in_progress" })).toEqual(ev(2, 7));
		expect(await ids({ EQ_disposition: ["active", "https://ref.gs1.org/cbv/Disp-in_transit"] })).toEqual(
			ev(1, 3, 4, 5),
		);
		expect(await ids({ EQ_bizStep: "urn:example:step:unknown" })).toEqual([]);
	});

	it("EQ_readPoint and WD_readPoint (with descendants)", async () => {
		expect(await ids({ EQ_readPoint: "urn:epc:id:sgln:0614141.00777.0" })).toEqual(ev(1));
		// The GLN itself (extension 0) covers its sub-locations.
		expect(await ids({ WD_readPoint: "urn:epc:id:sgln:0614141.00777.0" })).toEqual(ev(1, 2));
		expect(await ids({ WD_readPoint: "urn:epc:id:sgln:0614141.00777.1" })).toEqual(ev(2));
		// GS1 Digital Link: /254/<extension> is under the GLN.
		expect(await ids({ EQ_readPoint: "https://id.gs1.org/414/0614141007776" })).toEqual(ev(5));
		expect(await ids({ WD_readPoint: "https://id.gs1.org/414/0614141007776" })).toEqual(ev(5, 6));
		expect(await ids({ WD_readPoint: ["urn:epc:id:sgln:0614141.00888.0", "urn:epc:id:sgln:4012345.00001.0"] })).toEqual(
			ev(3, 4, 7),
		);
		// No prefix of another identifier: 0614141.0077 is not 0614141.00777.
		expect(await ids({ WD_readPoint: "urn:epc:id:sgln:0614141.0077" })).toEqual([]);
	});

	it("EQ_bizLocation and WD_bizLocation", async () => {
		expect(await ids({ EQ_bizLocation: "urn:epc:id:sgln:0614141.00777.0" })).toEqual(ev(1, 2));
		expect(await ids({ WD_bizLocation: "urn:epc:id:sgln:0614141.00777.0" })).toEqual(ev(1, 2));
		expect(await ids({ EQ_bizLocation: "urn:epc:id:sgln:0614141.00777.1" })).toEqual([]);
	});

	it("EQ_bizTransaction_<type>, the type in any CBV form", async () => {
		const po = "urn:epcglobal:cbv:bt:0614141000005:PO-1";
		expect(await ids({ EQ_bizTransaction_po: po })).toEqual(ev(3, 5));
		expect(await ids({ "EQ_bizTransaction_urn:epcglobal:cbv:btt:po": [po, "x"] })).toEqual(ev(3, 5));
		expect(
			await ids({ "EQ_bizTransaction_https://ref.gs1.org/cbv/BTT-desadv": "urn:epcglobal:cbv:bt:0614141000005:ASN-1" }),
		).toEqual(ev(3));
		expect(await ids({ EQ_bizTransaction_desadv: po })).toEqual([]);
	});

	it("EQ_source_<type> and EQ_destination_<type>", async () => {
		expect(await ids({ EQ_source_owning_party: "urn:epc:id:pgln:0614141.00000" })).toEqual(ev(3));
		expect(await ids({ "EQ_source_urn:epcglobal:cbv:sdt:owning_party": "urn:epc:id:pgln:0614141.00000" })).toEqual(
			ev(3),
		);
		expect(await ids({ EQ_source_possessing_party: "urn:epc:id:pgln:0614141.00000" })).toEqual([]);
		expect(await ids({ EQ_destination_location: "urn:epc:id:sgln:4012345.00001.0" })).toEqual(ev(3));
		expect(await ids({ EQ_destination_owning_party: "urn:epc:id:sgln:4012345.00001.0" })).toEqual([]);
	});

	it("EQ_transformationID and EQ_eventID", async () => {
		expect(await ids({ EQ_transformationID: "urn:uuid:9f0b5a36-0b61-4a3b-9e4b-3b1d2f6f8a01" })).toEqual(ev(4));
		expect(await ids({ EQ_eventID: ["ev:1", "ev:6", "ev:none"] })).toEqual(ev(1, 6));
	});

	it("MATCH_epc: epcList and childEPCs, by URI or pure identity pattern", async () => {
		expect(await ids({ MATCH_epc: "urn:epc:id:sgtin:0614141.107346.2017" })).toEqual(ev(1, 2));
		// ev:4 has 0614141.107346.2019 as an input, which MATCH_epc does not look at.
		expect(await ids({ MATCH_epc: "urn:epc:idpat:sgtin:0614141.107346.*" })).toEqual(ev(1, 2));
		expect(await ids({ MATCH_epc: "urn:epc:idpat:sgtin:4012345.*.*" })).toEqual(ev(5));
		expect(await ids({ MATCH_epc: "urn:epc:idpat:sgtin:*.*.*" })).toEqual(ev(1, 2, 5));
		expect(await ids({ MATCH_epc: ["urn:epc:id:sscc:0614141.1234567890", "urn:epc:id:giai:4000001.12345"] })).toEqual(
			ev(3, 6),
		);
		expect(await ids({ MATCH_epc: "urn:epc:idpat:sgtin:0614141.107346.2017" })).toEqual(ev(1, 2));
		expect(await ids({ MATCH_epc: "urn:epc:idpat:sgtin:061414.*.*" })).toEqual([]);
	});

	it("MATCH_parentID, MATCH_inputEPC, MATCH_outputEPC and MATCH_anyEPC", async () => {
		expect(await ids({ MATCH_parentID: "urn:epc:id:sscc:0614141.1234567890" })).toEqual(ev(2));
		expect(
			await ids({ MATCH_parentID: ["urn:epc:idpat:sscc:0614141.*", "urn:epc:idpat:grai:4012345.55555.*"] }),
		).toEqual(ev(2, 6));
		expect(await ids({ MATCH_inputEPC: "urn:epc:idpat:sgtin:0614141.107346.*" })).toEqual(ev(4));
		expect(await ids({ MATCH_outputEPC: "urn:epc:id:sgtin:4012345.077889.25" })).toEqual(ev(4));
		expect(await ids({ MATCH_anyEPC: "urn:epc:id:sgtin:4012345.077889.25" })).toEqual(ev(4, 5));
		expect(await ids({ MATCH_anyEPC: "urn:epc:id:sscc:0614141.1234567890" })).toEqual(ev(2, 3));
		expect(await ids({ MATCH_anyEPC: "urn:epc:idpat:sgtin:0614141.107346.*" })).toEqual(ev(1, 2, 4));
	});

	it("MATCH_epcClass and its input, output and any variants, with patterns over classes", async () => {
		expect(await ids({ MATCH_epcClass: "urn:epc:class:lgtin:0614141.107346.LOTA" })).toEqual(ev(7));
		// A SGTIN pattern covers classes written as patterns and the LGTINs of its GTINs.
		expect(await ids({ MATCH_epcClass: "urn:epc:idpat:sgtin:0614141.107346.*" })).toEqual(ev(7, 8));
		expect(await ids({ MATCH_epcClass: "urn:epc:idpat:sgtin:4012345.*.*" })).toEqual(ev(2));
		expect(await ids({ MATCH_inputEPCClass: "urn:epc:class:lgtin:4012345.011111.LOT1" })).toEqual(ev(4));
		expect(await ids({ MATCH_inputEPCClass: "urn:epc:idpat:sgtin:4012345.011111.*" })).toEqual(ev(4));
		expect(await ids({ MATCH_outputEPCClass: "urn:epc:idpat:sgtin:4012345.*.*" })).toEqual([]);
		expect(await ids({ MATCH_anyEPCClass: "urn:epc:idpat:sgtin:4012345.*.*" })).toEqual(ev(2, 4));
		// Classes are not instances: MATCH_epc does not see them.
		expect(await ids({ MATCH_epc: "urn:epc:idpat:sgtin:4012345.098765.*" })).toEqual([]);
	});

	// Issue #17: `urn:epc:id:sgtin:0614141.107346.*` found nothing (it was compared as a string).
	// EPCIS 1.2/2.0 §8.2.7.1: `*` as the last field(s) of an EPC URI is a pattern, as in idpat.
	it("every MATCH_ parameter takes urn:epc:id: URIs with * as the last field(s), as idpat patterns", async () => {
		expect(await ids({ MATCH_epc: "urn:epc:id:sgtin:0614141.107346.*" })).toEqual(ev(1, 2));
		expect(await ids({ MATCH_epc: "urn:epc:id:sgtin:4012345.*.*" })).toEqual(ev(5));
		expect(await ids({ MATCH_epc: "urn:epc:id:sgtin:*.*.*" })).toEqual(ev(1, 2, 5));
		expect(await ids({ MATCH_epc: "urn:epc:id:sgtin:061414.*.*" })).toEqual([]);
		expect(await ids({ MATCH_parentID: ["urn:epc:id:sscc:0614141.*", "urn:epc:id:grai:4012345.55555.*"] })).toEqual(
			ev(2, 6),
		);
		expect(await ids({ MATCH_inputEPC: "urn:epc:id:sgtin:0614141.107346.*" })).toEqual(ev(4));
		expect(await ids({ MATCH_outputEPC: "urn:epc:id:sgtin:4012345.077889.*" })).toEqual(ev(4));
		expect(await ids({ MATCH_anyEPC: "urn:epc:id:sgtin:0614141.107346.*" })).toEqual(ev(1, 2, 4));
		expect(await ids({ MATCH_epcClass: "urn:epc:id:sgtin:0614141.107346.*" })).toEqual(ev(7, 8));
		expect(await ids({ MATCH_inputEPCClass: "urn:epc:id:sgtin:4012345.011111.*" })).toEqual(ev(4));
		expect(await ids({ MATCH_anyEPCClass: "urn:epc:id:sgtin:4012345.*.*" })).toEqual(ev(2, 4));
		// A * that is not last, or inside a field, is no pattern: 422 names it.
		for (const bad of ["urn:epc:id:sgtin:*.107346.*", "urn:epc:id:sgtin:0614141.1073*.*"]) {
			const response = await query({ MATCH_epc: bad });
			expect(response.status).toBe(422);
			expect(Object.keys(response.json.errors)).toEqual(["parameters.MATCH_epc"]);
		}
	});
});

describe("POST /v1/epcis/query: combinations, order, pages and limits", () => {
	it("ANDs parameters and ORs the values of one", async () => {
		expect(await ids({ EQ_bizStep: "shipping", MATCH_anyEPC: "urn:epc:id:sscc:0614141.1234567890" })).toEqual(ev(3));
		expect(
			await ids({
				EQ_bizStep: ["shipping", "commissioning"],
				GE_eventTime: "2024-01-12T00:00:00Z",
				LT_eventTime: "2024-01-15T00:00:00Z",
				MATCH_anyEPC: "urn:epc:idpat:sgtin:4012345.*.*",
			}),
		).toEqual(ev(4, 5));
		expect(
			await ids({
				eventType: "ObjectEvent",
				EQ_action: "ADD",
				WD_bizLocation: "urn:epc:id:sgln:0614141.00777.0",
				MATCH_epc: "urn:epc:idpat:sgtin:0614141.*.*",
			}),
		).toEqual(ev(1));
		expect(
			await ids({ EQ_readPoint: "urn:epc:id:sgln:0614141.00777.0", WD_readPoint: "urn:epc:id:sgln:0614141.00777.1" }),
		).toEqual([]);
		expect(
			await ids({ MATCH_epc: "urn:epc:idpat:sgtin:0614141.*.*", MATCH_parentID: "urn:epc:idpat:sscc:0614141.*" }),
		).toEqual(ev(2));
	});

	it("orders by eventTime or recordTime, ASC or DESC (default eventTime DESC)", async () => {
		expect(await ids({ eventType: "ObjectEvent", orderBy: "eventTime", orderDirection: "ASC" }, true)).toEqual([
			"ev:1",
			"ev:3",
			"ev:7",
			"ev:8",
		]);
		expect(await ids({ eventType: "ObjectEvent", orderDirection: "DESC" }, true)).toEqual([
			"ev:8",
			"ev:7",
			"ev:3",
			"ev:1",
		]);
		// Equal recordTimes keep document order in the direction asked.
		expect(await ids({ orderBy: "recordTime", orderDirection: "ASC" }, true)).toEqual(ev(1, 2, 3, 4, 5, 6, 7, 8));
		expect(await ids({ orderBy: "recordTime" }, true)).toEqual(ev(1, 2, 3, 4, 5, 6, 7, 8).reverse());
	});

	it("pages with page and per_page, counting every match", async () => {
		const first = await query({ orderDirection: "ASC" }, { page: "?per_page=3" });
		expect(first.json.data.map((e: { eventID: string }) => e.eventID)).toEqual(["ev:1", "ev:2", "ev:3"]);
		expect(first.json.pagination).toEqual({ current_page: 1, last_page: 3, per_page: 3, total: 8, from: 1, to: 3 });
		const last = await query({ orderDirection: "ASC" }, { page: "?per_page=3&page=3" });
		expect(last.json.data.map((e: { eventID: string }) => e.eventID)).toEqual(["ev:7", "ev:8"]);
		expect(last.json.pagination).toMatchObject({ current_page: 3, total: 8, from: 7, to: 8 });
		const beyond = await query({}, { page: "?per_page=3&page=4" });
		expect(beyond.json).toEqual({
			data: [],
			pagination: { current_page: 4, last_page: 3, per_page: 3, total: 8, from: 0, to: 0 },
		});
		expect((await query({}, { page: "?per_page=101" })).status).toBe(422);
		expect((await query({}, { page: "?page=0" })).status).toBe(422);
	});

	it("eventCountLimit keeps the first N in order; maxEventCount refuses more matches with 422", async () => {
		const limited = await query({ orderDirection: "ASC", eventCountLimit: 3 }, { page: "?per_page=2&page=2" });
		expect(limited.json.data.map((e: { eventID: string }) => e.eventID)).toEqual(["ev:3"]);
		expect(limited.json.pagination.total).toBe(3);
		expect(await ids({ EQ_bizStep: "shipping", maxEventCount: 2 })).toEqual(ev(3, 5));
		const tooMany = await query({ EQ_action: "ADD", maxEventCount: "3" });
		expect(tooMany.status).toBe(422);
		expect(tooMany.json.error).toMatchObject({
			code: "EPCIS_QUERY_TOO_LARGE",
			details: { exception: "QueryTooLargeException", matching: 4, max_event_count: 3 },
		});
		expect(tooMany.json.errors["parameters.maxEventCount"]).toBeDefined();
	});
});

describe("POST /v1/epcis/query: refusals", () => {
	it("names every invalid parameter in one 422 (QueryParameterException)", async () => {
		const response = await query({
			EQ_bizStep: "shipping",
			EQ_colour: "red",
			GE_eventTime: "2024-01-01T00:00:00",
			LT_eventTime: ["2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z"],
			EQ_action: ["ADD", "JUMP"],
			eventType: "CakeEvent",
			MATCH_epc: "urn:epc:idpat:sgtin:*.107346.*",
			MATCH_parentID: [],
			EQ_readPoint: 42,
			orderBy: "bizStep",
			orderDirection: "UP",
			eventCountLimit: 0,
		});
		expect(response.status).toBe(422);
		expect(response.json.error.code).toBe("EPCIS_QUERY_PARAMETER_INVALID");
		expect(response.json.error.details.exception).toBe("QueryParameterException");
		expect(Object.keys(response.json.errors).sort()).toEqual(
			[
				"EQ_colour",
				"GE_eventTime",
				"LT_eventTime",
				"EQ_action",
				"eventType",
				"MATCH_epc",
				"MATCH_parentID",
				"EQ_readPoint",
				"orderBy",
				"orderDirection",
				"eventCountLimit",
			]
				.map((n) => `parameters.${n}`)
				.sort(),
		);
		const both = await query({ eventCountLimit: 2, maxEventCount: 5 });
		expect(Object.keys(both.json.errors).sort()).toEqual(["parameters.eventCountLimit", "parameters.maxEventCount"]);
	});

	it("answers another query type, or none, with 422", async () => {
		const master = await query({}, { queryType: "SimpleMasterDataQuery" });
		expect(master.status).toBe(422);
		expect(master.json.error.code).toBe("EPCIS_NO_SUCH_QUERY");
		expect(master.json.errors.query_type).toBeDefined();
		const none = await t.call("POST", "/v1/epcis/query", { token: key, body: { parameters: {} } });
		expect(none.status).toBe(422);
		expect(none.json.errors.query_type).toEqual(["is required"]);
	});

	it("needs messages:read, which a read-only key has", async () => {
		expect((await query({}, { token: partnersOnly })).status).toBe(403);
		expect((await query({ EQ_eventID: "ev:1" }, { token: readOnly })).json.data).toHaveLength(1);
	});

	it("keeps tenants apart: another account's key sees only its own copy", async () => {
		const theirs = await query({}, { token: other });
		expect(theirs.json.pagination.total).toBe(6);
		expect(theirs.json.data.every((e: { source_message_id: string }) => e.source_message_id !== sent.doc20)).toBe(true);
		expect((await query({}, { token: key })).json.pagination.total).toBe(8);
	});
});
