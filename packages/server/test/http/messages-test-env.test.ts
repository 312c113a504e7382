import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Background } from "../../src/service/jobs/background.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";
import { eventually, startWorker } from "../helpers/worker.ts";

let t: TestApp;
let worker: Background;
let owner: Awaited<ReturnType<typeof register>>;
let key: string;
beforeEach(async () => {
	t = createTestApp();
	worker = startWorker(t);
	owner = await register(t, "Sender");
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
	await t.call("POST", "/v1/partners", {
		token: key,
		body: { name: "Broken", as2_id: "FAIL-BROKEN", url: "https://broken.example/as2" },
	});
});
afterEach(async () => {
	await worker.stop();
	await t.close();
});

const send = (body: Record<string, unknown>) =>
	t.call("POST", "/v1/messages", {
		token: key,
		body: { partner_id: "prt_000001", content_type: "application/edi-x12", payload: { content: "ISA*00*~" }, ...body },
	});
const kinds = async (id: string) =>
	(await t.store.events.list({ accountId: owner.accountId }))
		.filter((e) => e.data.id === id && e.kind.startsWith("message."))
		.map((e) => e.kind);

describe("test environment: the simulated partner", () => {
	it("moves a message queued → processing → sent → delivered with every event and a synthetic MDN", async () => {
		const response = await send({ subject: "PO 1" });
		expect(response.status).toBe(202);
		expect(response.json.data).toMatchObject({
			id: "msg_000001",
			status: "queued",
			direction: "outbound",
			bytes: 8,
			subject: "PO 1",
		});
		const delivered = await eventually(async () => {
			const m = await t.store.messages.get(owner.tenantId, "msg_000001");
			return m?.status === "delivered" ? m : null;
		});
		expect(delivered).toMatchObject({ mdnStatus: "received", environment: "test", attempts: 1 });
		expect(delivered.mdnData?.disposition).toContain("processed");
		expect(await kinds("msg_000001")).toEqual(["message.queued", "message.sent", "message.delivered"]);
	});

	it("delivers an async MDN a moment later, and leaves mdn none at sent", async () => {
		await send({ mdn_mode: "async" });
		await send({ mdn_mode: "none" });
		await eventually(async () => (await t.store.messages.get(owner.tenantId, "msg_000001"))?.status === "sent");
		expect((await t.store.messages.get(owner.tenantId, "msg_000001"))?.mdnStatus).toBe("pending");
		t.clock.advance(1);
		worker.worker.wake();
		await eventually(async () => (await t.store.messages.get(owner.tenantId, "msg_000001"))?.status === "delivered");
		await eventually(async () => (await t.store.messages.get(owner.tenantId, "msg_000002"))?.status === "sent");
		expect((await t.store.messages.get(owner.tenantId, "msg_000002"))?.mdnStatus).toBe("none");
	});

	it("fails sends to a FAIL… partner with PARTNER_UNREACHABLE", async () => {
		await send({ partner_id: "prt_000002" });
		const failed = await eventually(async () => {
			const m = await t.store.messages.get(owner.tenantId, "msg_000001");
			return m?.status === "failed" ? m : null;
		});
		expect(failed.errorCode).toBe("PARTNER_UNREACHABLE");
		expect(await kinds("msg_000001")).toEqual(["message.queued", "message.failed"]);
	});
});
