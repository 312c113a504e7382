import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Background } from "../../src/service/jobs/background.ts";
import { storeMessage } from "../helpers/messages.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";
import { eventually, startWorker } from "../helpers/worker.ts";

/**
 * DELETE /v1/partners/{id} (interface spec, Partner active flag: "record removed; certificates
 * become inactive; message history is kept"; Message errors: PARTNER_NOT_FOUND "also for
 * messages sent to a deleted partner"). The partner's messages stay listed, filterable by its
 * id, readable with the partner as it was and downloadable; the partner itself — its detail,
 * stats and configuration — answers 404 PARTNER_NOT_FOUND like any missing partner; a new send
 * to it is 404, and a send queued before the delete fails with PARTNER_NOT_FOUND.
 */
let t: TestApp;
let worker: Background | null = null;
let owner: Awaited<ReturnType<typeof register>>;
let testKey: string;
let liveKey: string;
const PARTNER = { name: "Acme Supply", as2_id: "ACME-SUPPLY", url: "https://as2.acme.example/receive" };

beforeEach(async () => {
	t = createTestApp();
	owner = await register(t, "Historian");
	testKey = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "test",
		permissions: ["*"],
	});
	liveKey = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "live",
		permissions: ["*"],
	});
});
afterEach(async () => {
	await worker?.stop();
	worker = null;
	await t.close();
});

const send = (token: string, partnerId: string, subject: string) =>
	t.call("POST", "/v1/messages", {
		token,
		body: {
			partner_id: partnerId,
			content_type: "text/plain",
			subject,
			mdn_mode: "sync",
			payload: { content: `content of ${subject}`, filename: `${subject}.txt` },
		},
	});
const ids = (response: { json: { data: { id: string }[] } }) => response.json.data.map((m) => m.id).sort();

describe("deleting a partner keeps its message history", () => {
	it("messages stay listed, readable and downloadable; the partner's own endpoints answer 404", async () => {
		const created = await t.call("POST", "/v1/partners", { token: liveKey, body: PARTNER });
		const partnerId = created.json.data.id as string;
		// Two messages delivered by the test environment's simulated partner…
		worker = startWorker(t);
		const delivered: string[] = [];
		for (const subject of ["po-1", "po-2"]) {
			const sent = await send(testKey, partnerId, subject);
			expect(sent.status, sent.text).toBe(202);
			delivered.push(sent.json.data.id);
		}
		for (const id of delivered)
			await eventually(async () => (await t.store.messages.getById(id))?.status === "delivered", `${id} delivered`);
		await worker.stop();
		worker = null;
		// …one received from the partner…
		const inbound = await storeMessage(t, owner, {
			direction: "inbound",
			status: "received",
			partnerId,
			partnerName: PARTNER.name,
			partnerAs2Id: PARTNER.as2_id,
			partnerUrl: PARTNER.url,
			mdnMode: "none",
			mdnStatus: "none",
		});
		// …and one live message still queued (no worker runs) when the partner is deleted.
		const queued = await send(liveKey, partnerId, "po-3");
		expect(queued.status, queued.text).toBe(202);
		const all = [...delivered, inbound.id, queued.json.data.id].sort();
		const before = await t.call("GET", `/v1/partners/${partnerId}/stats`, { token: liveKey });
		// `sent` counts outbound messages, the queued one included; success rates only finished ones.
		expect(before.json.data.messages).toEqual({ sent: 3, received: 1, total: 4 });
		expect(before.json.data.success_rates).toMatchObject({ outbound: 100, inbound: 100 });

		t.clock.advance(30);
		const deleted = await t.call("DELETE", `/v1/partners/${partnerId}`, { token: liveKey });
		expect(deleted.status).toBe(200);
		expect(deleted.json.data).toEqual({ id: partnerId, deleted_at: "2026-03-01T09:00:30.000000Z" });

		// History kept: the list by partner, the unfiltered list, each detail, the payload.
		const byPartner = await t.call("GET", `/v1/messages?partner_id=${partnerId}`, { token: liveKey });
		expect(byPartner.status).toBe(200);
		expect(ids(byPartner)).toEqual(all);
		expect(byPartner.json.pagination.total).toBe(4);
		expect(ids(await t.call("GET", "/v1/messages", { token: liveKey }))).toEqual(all);
		const detail = await t.call("GET", `/v1/messages/${delivered[0]}`, { token: liveKey });
		expect(detail.status).toBe(200);
		expect(detail.json.data).toMatchObject({
			id: delivered[0],
			status: "delivered",
			partner: { id: partnerId, name: PARTNER.name, as2_id: PARTNER.as2_id, url: PARTNER.url },
			mdn_status: "received",
		});
		expect(detail.json.data.mdn_data.disposition).toContain("processed");
		const received = await t.call("GET", `/v1/messages/${inbound.id}`, { token: liveKey });
		expect(received.json.data).toMatchObject({ direction: "inbound", status: "received", partner: { id: partnerId } });
		const payload = await t.app.request(`/v1/messages/${delivered[1]}/payload`, {
			headers: { authorization: `Bearer ${liveKey}` },
		});
		expect(payload.status).toBe(200);
		expect(await payload.text()).toBe("content of po-2");

		// The partner itself is gone: detail, stats, configuration, certificates → 404 PARTNER_NOT_FOUND.
		for (const path of ["", "/stats", "/configuration", "/certificates"]) {
			const gone = await t.call("GET", `/v1/partners/${partnerId}${path}`, { token: liveKey });
			expect(gone.status, path).toBe(404);
			expect(gone.json.error.code, path).toBe("PARTNER_NOT_FOUND");
		}
		expect(ids(await t.call("GET", "/v1/partners", { token: liveKey }))).toEqual([]);

		// Sending to it: 404 PARTNER_NOT_FOUND; the message queued before the delete fails with it.
		const late = await send(liveKey, partnerId, "po-4");
		expect(late.status).toBe(404);
		expect(late.json.error.code).toBe("PARTNER_NOT_FOUND");
		worker = startWorker(t);
		const failed = await eventually(async () => {
			const m = await t.store.messages.getById(queued.json.data.id);
			return m?.status === "failed" ? m : null;
		}, "the queued message to fail");
		expect(failed.errorCode).toBe("PARTNER_NOT_FOUND");
		const failedDetail = await t.call("GET", `/v1/messages/${queued.json.data.id}`, { token: liveKey });
		expect(failedDetail.json.data).toMatchObject({ status: "failed", error_code: "PARTNER_NOT_FOUND" });
		const [failedEvent] = await t.store.events.list({ accountId: owner.accountId, kind: "message.failed" });
		expect(failedEvent?.data).toMatchObject({ id: queued.json.data.id, error_code: "PARTNER_NOT_FOUND" });
		expect(
			(await t.call("GET", `/v1/messages?partner_id=${partnerId}&status=failed`, { token: liveKey })).json.data,
		).toHaveLength(1);
	});

	it("a new partner with the same AS2 id starts with no history of its own; the old history stays with the old id", async () => {
		const first = (await t.call("POST", "/v1/partners", { token: liveKey, body: PARTNER })).json.data.id as string;
		const old = await storeMessage(t, owner, {
			direction: "inbound",
			status: "received",
			partnerId: first,
			partnerName: PARTNER.name,
			partnerAs2Id: PARTNER.as2_id,
			mdnMode: "none",
			mdnStatus: "none",
		});
		expect((await t.call("DELETE", `/v1/partners/${first}`, { token: liveKey })).status).toBe(200);
		const again = await t.call("POST", "/v1/partners", { token: liveKey, body: PARTNER });
		expect(again.status).toBe(201);
		const second = again.json.data.id as string;
		expect(second).not.toBe(first);
		expect((await t.call("GET", `/v1/messages?partner_id=${second}`, { token: liveKey })).json.data).toEqual([]);
		expect(ids(await t.call("GET", `/v1/messages?partner_id=${first}`, { token: liveKey }))).toEqual([old.id]);
		const detail = await t.call("GET", `/v1/partners/${second}`, { token: liveKey });
		expect(detail.json.data.message_stats).toMatchObject({ total_sent: 0, total_received: 0 });
		const stats = await t.call("GET", `/v1/partners/${second}/stats`, { token: liveKey });
		expect(stats.json.data.messages).toEqual({ sent: 0, received: 0, total: 0 });
	});

	it("a test-environment message queued before the delete fails with PARTNER_NOT_FOUND too, as a live one does", async () => {
		const partnerId = (await t.call("POST", "/v1/partners", { token: testKey, body: PARTNER })).json.data.id as string;
		const queued = await send(testKey, partnerId, "po-sim");
		expect(queued.status, queued.text).toBe(202);
		expect((await t.call("DELETE", `/v1/partners/${partnerId}`, { token: testKey })).status).toBe(200);
		worker = startWorker(t);
		const settled = await eventually(async () => {
			const m = await t.store.messages.getById(queued.json.data.id);
			return m && (m.status === "failed" || m.status === "delivered") ? m : null;
		}, "the queued test message to settle");
		expect(settled).toMatchObject({ status: "failed", errorCode: "PARTNER_NOT_FOUND", environment: "test" });
		const kinds = (await t.store.events.list({ accountId: owner.accountId }))
			.filter((e) => e.data.id === queued.json.data.id)
			.map((e) => e.kind);
		expect(kinds).toEqual(["message.queued", "message.failed"]);
	});
});
