import { readFileSync } from "node:fs";
import type { EpcisEventRecord } from "@as2kit/core/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EPCIS_INDEX_JOB } from "../../src/service/epcis/index-job.ts";
import type { Background } from "../../src/service/jobs/background.ts";
import { DOCUMENT_20, manyEvents } from "../helpers/epcis-documents.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";
import { eventually, jobContext, startWorker } from "../helpers/worker.ts";

/**
 * Indexing EPCIS payloads: outbound and inbound messages, in a job of its own that never
 * touches the message; idempotent across crashes; failures recorded, not propagated.
 */
let t: TestApp;
let worker: Background;
let owner: Awaited<ReturnType<typeof register>>;
let key: string;
beforeEach(async () => {
	t = createTestApp({ defaultPlan: "enterprise" });
	worker = startWorker(t);
	owner = await register(t, "Shipper");
	key = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "test",
		permissions: ["*"],
	});
	await t.call("POST", "/v1/partners", {
		token: key,
		body: { name: "Buyer", as2_id: "BUYER", url: "https://buyer.example/as2", mdn_mode: "sync" },
	});
});
afterEach(async () => {
	await worker.stop();
	await t.close();
});

async function send(content: string, contentType = "application/xml"): Promise<string> {
	const response = await t.call("POST", "/v1/messages", {
		token: key,
		body: { partner_id: "prt_000001", content_type: contentType, payload: { content } },
	});
	expect(response.status, response.text).toBe(202);
	return response.json.data.id;
}

const settled = (id: string) =>
	eventually(async () => {
		const document = await t.store.epcis.getDocument(owner.tenantId, id);
		return document && document.status !== "indexing" ? document : null;
	}, `${id} indexed`);
const delivered = (id: string) =>
	eventually(async () => {
		const message = await t.store.messages.get(owner.tenantId, id);
		return message?.status === "delivered" ? message : null;
	}, `${id} delivered`);
const eventsOf = async (id: string) =>
	(
		await t.store.epcis.queryEvents(
			owner.tenantId,
			{},
			{ orderBy: "recordTime", direction: "asc", page: { page: 1, perPage: 100 } },
		)
	).items.filter((e) => e.sourceMessageId === id);

describe("EPCIS indexing of message payloads", () => {
	it("indexes an outbound document sent in the test environment, and the message is delivered as ever", async () => {
		const id = await send(DOCUMENT_20, "application/xml; charset=utf-8");
		expect(await settled(id)).toMatchObject({ status: "indexed", version: "2.0", eventCount: 6, skippedEvents: 0 });
		expect((await delivered(id)).mdnStatus).toBe("received");
		expect((await eventsOf(id)).map((e) => e.event.eventID)).toEqual(["ev:1", "ev:2", "ev:3", "ev:4", "ev:5", "ev:6"]);
	});

	it("indexes an inbound document received over AS2, linked to the inbound message", async () => {
		await t.call("POST", "/v1/partners", {
			token: key,
			body: { name: "Supplier", as2_id: "SUPPLIER", url: "https://supplier.example/as2" },
		});
		const tenant = await t.store.tenants.get(owner.accountId, owner.tenantId);
		const response = await t.app.request("/as2/receive", {
			method: "POST",
			headers: {
				"as2-version": "1.2",
				"as2-from": "SUPPLIER",
				"as2-to": tenant!.as2Id,
				"message-id": "<epcis-1@supplier.example>",
				"content-type": "text/xml",
			},
			body: DOCUMENT_20,
		});
		expect(response.status).toBeLessThan(300);
		const inbound = await eventually(async () => {
			const page = await t.store.messages.list(owner.tenantId, { direction: "inbound" }, { page: 1, perPage: 10 });
			return page.items[0];
		}, "the inbound message");
		expect(inbound).toMatchObject({ status: "received", contentType: "text/xml" });
		expect(await settled(inbound.id)).toMatchObject({ status: "indexed", eventCount: 6 });
		const query = await t.call("POST", "/v1/epcis/query", {
			token: key,
			body: { query_type: "SimpleEventQuery", parameters: { EQ_eventID: "ev:5" } },
		});
		expect(query.json.data.map((e: { source_message_id: string }) => e.source_message_id)).toEqual([inbound.id]);
	});

	it("indexes the events of an EPCISQueryDocument (an EPCIS 2.0 query result sent on)", async () => {
		const document = readFileSync(
			new URL("../../../as2-core/test/fixtures/epcis/20-query-document.xml", import.meta.url),
			"utf8",
		);
		const id = await send(document);
		expect(await settled(id)).toMatchObject({ status: "indexed", version: "2.0", eventCount: 1 });
		expect((await eventsOf(id))[0]?.event).toMatchObject({ eventTime: "2021-12-31T23:00:00Z" });
	});

	it("skips XML that is not EPCIS, and never looks at other content types", async () => {
		const order = await send("<?xml version='1.0'?><order><id>1</id></order>");
		const edi = await send("ISA*00*~", "application/edi-x12");
		expect(await settled(order)).toMatchObject({ status: "skipped", eventCount: 0 });
		await delivered(edi);
		expect(await t.store.epcis.getDocument(owner.tenantId, edi)).toBeNull();
		expect((await t.store.jobs.list({ kind: EPCIS_INDEX_JOB })).length).toBe(0);
	});

	it("keeps no event of a document that breaks off, records why, and delivers the message all the same", async () => {
		const broken = DOCUMENT_20.slice(0, DOCUMENT_20.indexOf("<TransformationEvent>"));
		const id = await send(broken);
		expect(await settled(id)).toMatchObject({ status: "failed", version: "2.0", errorCode: "EPCIS_PARSE_ERROR" });
		expect(await eventsOf(id)).toEqual([]);
		const message = await delivered(id);
		expect(message.errorCode).toBeNull();
		expect(message.details).not.toHaveProperty("epcis_index_status");
	});

	it("leaves out events without a readable eventTime, and counts them", async () => {
		const id = await send(
			DOCUMENT_20.replace("<eventTime>2024-01-12T10:00:00.000Z</eventTime>", "<eventTime>soon</eventTime>"),
		);
		expect(await settled(id)).toMatchObject({ status: "indexed", eventCount: 5, skippedEvents: 1 });
		expect((await eventsOf(id)).map((e) => e.event.eventID)).not.toContain("ev:3");
	});

	it("never lets a storage failure in indexing reach the message; the job retries until it succeeds", async () => {
		const insert = t.store.epcis.insertEvents;
		t.store.epcis.insertEvents = async () => {
			throw new Error("disk full");
		};
		const id = await send(DOCUMENT_20);
		await delivered(id);
		const job = await eventually(async () => {
			const [pending] = await t.store.jobs.list({ kind: EPCIS_INDEX_JOB });
			return pending?.lastError ? pending : null;
		}, "a failed indexing run");
		expect(job.lastError).toContain("disk full");
		expect((await t.store.messages.get(owner.tenantId, id))?.status).toBe("delivered");
		t.store.epcis.insertEvents = insert;
		t.clock.advance(3600);
		worker.worker.wake();
		expect(await settled(id)).toMatchObject({ status: "indexed", eventCount: 6 });
	});

	it("adds only what is missing when a run was cut short, and a repeated run changes nothing", async () => {
		const insert = t.store.epcis.insertEvents;
		let calls = 0;
		// The first batch commits, then the process "dies" mid-document.
		t.store.epcis.insertEvents = async (events: readonly EpcisEventRecord[]) => {
			if (++calls === 2) throw new Error("killed");
			return insert(events);
		};
		const id = await send(manyEvents(600));
		await eventually(async () => (await eventsOf(id)).length > 0 || null, "the first batch");
		t.store.epcis.insertEvents = insert;
		t.clock.advance(3600);
		worker.worker.wake();
		expect(await settled(id)).toMatchObject({ status: "indexed", eventCount: 600 });
		const count = async () =>
			(
				await t.store.epcis.queryEvents(
					owner.tenantId,
					{ values: [{ kinds: ["epc"], match: { prefixes: ["urn:epc:id:sgtin:9521141."] } }] },
					{ orderBy: "eventTime", direction: "asc", page: { page: 1, perPage: 1 } },
				)
			).total;
		expect(await count()).toBe(600);
		// The job again, by hand (a duplicate delivery of the job): nothing doubles.
		const handler = t.service.messages.handlers[EPCIS_INDEX_JOB]!;
		const now = t.clock.now();
		await handler(
			{
				id: "x",
				kind: EPCIS_INDEX_JOB,
				payload: { messageId: id },
				key: null,
				priority: 0,
				runAt: now,
				attempts: 1,
				lockedBy: null,
				lockedUntil: null,
				lastError: null,
				createdAt: now,
			},
			jobContext(),
		);
		expect(await count()).toBe(600);
		const eventIds = new Set(
			(
				await t.store.epcis.queryEvents(
					owner.tenantId,
					{},
					{ orderBy: "eventTime", direction: "asc", page: { page: 1, perPage: 100 } },
				)
			).items.map((e) => e.event.eventID),
		);
		expect(eventIds.size).toBe(100);
	});
});
