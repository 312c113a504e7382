import { rmSync } from "node:fs";
import * as v from "valibot";
import { afterAll, describe, expect, it } from "vitest";
import type { Background } from "../../src/service/jobs/background.ts";
import { EVENT_KINDS, type EventKind } from "../../src/service/webhooks/event-kinds.ts";
import { makeCertificates } from "../helpers/certs.ts";
import { createKey, createTestApp, register } from "../helpers/test-app.ts";
import { eventually, startWorker } from "../helpers/worker.ts";

const certs = makeCertificates();
afterAll(() => rmSync(certs.dir, { recursive: true, force: true }));

/**
 * The delivery test checks the catalog's data fields with hand-written samples of some kinds;
 * this one drives the real emitters (partners, certificates, the message pipeline of the test
 * environment) and checks every event they wrote to the outbox — the data a webhook carries —
 * against its kind's schema.
 */
describe("the data of emitted events", () => {
	it("matches the catalog's schema for every kind the real emitters write", async () => {
		const t = createTestApp({ defaultPlan: "enterprise" });
		let worker: Background | null = null;
		try {
			worker = startWorker(t);
			const owner = await register(t, "Emitter");
			const key = await createKey(t, owner.token, {
				scope: "tenant",
				tenant_id: owner.tenantId,
				environment: "test",
				permissions: ["*"],
			});
			const call = (method: string, path: string, body?: unknown) => t.call(method, path, { token: key, body });
			const buyer = await call("POST", "/v1/partners", {
				name: "Buyer",
				as2_id: "BUYER",
				url: "https://buyer.example/as2",
				mdn_mode: "sync",
			});
			const broken = await call("POST", "/v1/partners", {
				name: "Broken",
				as2_id: "FAIL-BROKEN",
				url: "https://broken.example/as2",
			});
			expect((await call("PATCH", `/v1/partners/${buyer.json.data.id}`, { name: "Buyer Inc" })).status).toBe(200);
			const uploaded = await call("POST", `/v1/partners/${buyer.json.data.id}/certificates`, {
				name: "Buyer 2026",
				usage: "both",
				certificate: certs.selfSigned("buyer").certPem,
			});
			expect(uploaded.status).toBe(201);
			await call("POST", `/v1/certificates/${uploaded.json.data.id}/deactivate`);
			expect((await call("POST", `/v1/certificates/${uploaded.json.data.id}/activate`)).status).toBe(200);
			const message = (partner_id: string) =>
				call("POST", "/v1/messages", { partner_id, content_type: "application/edi-x12", payload: { content: "ISA~" } });
			const delivered = (await message(buyer.json.data.id)).json.data.id;
			const failed = (await message(broken.json.data.id)).json.data.id;
			await eventually(async () => {
				const a = await t.store.messages.get(owner.tenantId, delivered);
				const b = await t.store.messages.get(owner.tenantId, failed);
				return a?.status === "delivered" && b?.status === "failed" ? true : null;
			});
			const extra = await call("POST", "/v1/partners", { name: "Gone", as2_id: "GONE", url: "https://gone.example" });
			expect((await call("DELETE", `/v1/partners/${extra.json.data.id}`)).status).toBeLessThan(300);

			const events = await t.store.events.list({ accountId: owner.accountId, limit: 1000 });
			const kinds = new Set(events.map((e) => e.kind));
			for (const kind of [
				"account.created",
				"tenant.created",
				"partner.created",
				"partner.updated",
				"partner.deleted",
				"certificate.uploaded",
				"certificate.activated",
				"message.queued",
				"message.sent",
				"message.delivered",
				"message.failed",
			]) {
				expect(kinds, kind).toContain(kind);
			}
			for (const event of events) {
				const schema = EVENT_KINDS[event.kind as EventKind]?.data;
				expect(schema, event.kind).toBeDefined();
				const parsed = v.safeParse(schema!, event.data);
				expect(parsed.issues ?? [], `${event.kind}: ${JSON.stringify(event.data)}`).toEqual([]);
			}
		} finally {
			await worker?.stop();
			await t.close();
		}
	});
});
