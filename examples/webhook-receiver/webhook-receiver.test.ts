import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp, createBackground, createFsBlobStore, createService } from "@as2kit/server";
import { createSqliteStore } from "@as2kit/storage-sqlite";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { WebhookEvent } from "./verify-webhook.ts";
import { createWebhookReceiver } from "./webhook-receiver.ts";

const dir = mkdtempSync(join(tmpdir(), "as2kit-receiver-"));
const service = createService({
	store: createSqliteStore({ url: ":memory:" }),
	blobs: createFsBlobStore(dir),
	config: { masterKey: new Uint8Array(32).fill(3), passwordCostLog2: 10, allowHttp: true, allowPrivateTargets: true },
});
const app = createApp({ service });
const background = createBackground(service, { pollMs: 20 });
const handled: WebhookEvent[] = [];
// Supplied on creation here; as2kit generates one (shown once) when none is given.
const secret = "whsec_example_receiver_secret_0123456789";
const receiver = createWebhookReceiver({ secret, onEvent: (e) => void handled.push(e) });
let url = "";

beforeAll(async () => {
	await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
	url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
	background.start();
});
afterAll(async () => {
	await background.stop();
	await new Promise<void>((resolve) => {
		receiver.close(() => resolve());
		receiver.closeAllConnections();
	});
	await service.deps.store.close();
	rmSync(dir, { recursive: true, force: true });
});

const call = async (method: string, path: string, token: string, body?: unknown) => {
	const response = await app.request(path, {
		method,
		headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	return (await response.json()) as { data: Record<string, string> };
};

it("examples/webhook-receiver verifies, handles and de-duplicates real as2kit deliveries", async () => {
	const registered = await app.request("/auth/register", {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({
			name: "Integrator",
			email: "i@example.com",
			password: "long enough!",
			password_confirmation: "long enough!",
		}),
	});
	const { token } = (await registered.json()) as { token: string };
	const endpoint = await call("POST", "/v1/webhook-endpoints", token, {
		url,
		events: ["account.*", "webhook.test"],
		secret,
	});

	const test = await call("POST", `/v1/webhook-endpoints/${endpoint.data.id}/test`, token);
	expect(test.data).toMatchObject({ status: "succeeded", response_status: 200 });
	await call("PATCH", "/v1/account", token, { name: "Integrator Inc" });
	background.wake();
	for (let end = Date.now() + 30_000; Date.now() < end && !handled.some((e) => e.event === "account.updated"); ) {
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
	const updated = handled.find((e) => e.event === "account.updated");
	expect(updated?.data).toMatchObject({ name: "Integrator Inc" });
	expect(handled[0]).toMatchObject({ event: "webhook.test", api_version: "v1" });

	// A repeat of a handled delivery is acknowledged and not handled twice.
	const body = JSON.stringify({ event: "account.updated", data: {}, timestamp: "", api_version: "v1" });
	const headers = (id: string, at = Math.floor(Date.now() / 1000), payload = body) => ({
		"content-type": "application/json",
		"x-webhook-id": id,
		"x-webhook-timestamp": String(at),
		"x-signature": createHmac("sha256", secret).update(payload).digest("hex"),
		"x-webhook-signature": `v1=${createHmac("sha256", secret).update(`${id}.${at}.${payload}`).digest("hex")}`,
	});
	const post = (h: Record<string, string>, payload = body) => fetch(url, { method: "POST", headers: h, body: payload });
	const count = handled.length;
	expect((await post(headers("whd_900001"))).status).toBe(200);
	expect(await (await post(headers("whd_900001"))).json()).toEqual({ received: true, duplicate: true });
	expect(handled).toHaveLength(count + 1);
	// A forged body, a stale replay and an unsigned request are refused with 401.
	expect((await post(headers("whd_900002"), body.replace("v1", "v2"))).status).toBe(401);
	expect((await post(headers("whd_900003", Math.floor(Date.now() / 1000) - 3600))).status).toBe(401);
	expect((await post({ "content-type": "application/json" })).status).toBe(401);
	expect(handled).toHaveLength(count + 1);
});
