import { afterEach, beforeEach, expect, it } from "vitest";
import type { Background } from "../../src/service/jobs/background.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";
import { eventually, startWorker } from "../helpers/worker.ts";

let t: TestApp;
let worker: Background;
let key: string;
beforeEach(async () => {
	t = createTestApp();
	worker = startWorker(t);
	const owner = await register(t, "Roundtrip");
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

it("reads back a message sent through POST /v1/messages: listed, shown with its MDN, downloaded, counted", async () => {
	const content = "ISA*00*          *00*~\nGS*PO*BUYER~\n";
	const sent = await t.call("POST", "/v1/messages", {
		token: key,
		body: {
			partner_id: "prt_000001",
			content_type: "application/edi-x12",
			subject: "PO 4711",
			payload: { content, filename: "po-4711.x12" },
		},
	});
	expect(sent.status).toBe(202);
	const id = sent.json.data.id;
	await eventually(async () => (await t.store.messages.getById(id))?.status === "delivered", "delivery");
	const listed = await t.call("GET", "/v1/messages?status=delivered&environment=test&search=4711", { token: key });
	expect(listed.json.data.map((m: { id: string }) => m.id)).toEqual([id]);
	const detail = await t.call("GET", `/v1/messages/${id}`, { token: key });
	expect(detail.json.data).toMatchObject({ filename: "po-4711.x12", mdn_status: "received" });
	expect(detail.json.data.mdn_data.disposition).toContain("processed");
	const payload = await t.app.request(`/v1/messages/${id}/payload`, { headers: { authorization: `Bearer ${key}` } });
	expect(payload.headers.get("content-disposition")).toBe('attachment; filename="po-4711.x12"');
	expect(payload.headers.get("content-length")).toBe(String(Buffer.byteLength(content)));
	expect(await payload.text()).toBe(content);
	const stats = await t.call("GET", "/v1/partners/prt_000001/stats", { token: key });
	expect(stats.json.data).toMatchObject({
		messages: { sent: 1, received: 0, total: 1 },
		success_rates: { outbound: 100, inbound: null, overall: 100 },
	});
});
