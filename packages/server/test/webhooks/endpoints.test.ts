import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";
import { expectedSignature, type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

let t: TestApp;
let receiver: Receiver | null = null;
afterEach(async () => {
	await receiver?.close();
	receiver = null;
	await t.close();
});

const create = (token: string, body: unknown, headers: Record<string, string> = {}) =>
	t.call("POST", "/v1/webhook-endpoints", { token, body, headers });

describe("webhook endpoints", () => {
	it("creates an endpoint with a generated secret shown once; lists and gets it without", async () => {
		t = createTestApp();
		const { token } = await register(t);
		const created = await create(token, { url: "https://hooks.example.com/as2", events: ["message.*", "billing.*"] });
		expect(created.status).toBe(201);
		expect(created.json).toMatchObject({
			message: expect.any(String),
			data: {
				id: "wh_000001",
				url: "https://hooks.example.com/as2",
				events: ["message.*", "billing.*"],
				active: true,
				failing_since: null,
				disabled_reason: null,
				created_at: "2026-03-01T09:00:00.000000Z",
			},
		});
		expect(created.json.data.secret).toMatch(/^whsec_[0-9A-Za-z]{40}$/);
		const list = await t.call("GET", "/v1/webhook-endpoints", { token });
		expect(list.json.pagination).toMatchObject({ total: 1, current_page: 1 });
		expect(list.json.data[0]).not.toHaveProperty("secret");
		const one = await t.call("GET", "/v1/webhook-endpoints/wh_000001", { token });
		expect(one.json.data).not.toHaveProperty("secret");
		expect(one.text).not.toContain(created.json.data.secret);
		expect(list.text).not.toContain(created.json.data.secret);
	});

	it("keeps a supplied secret, sealed at rest", async () => {
		t = createTestApp();
		const owner = await register(t);
		const secret = "my-own-secret-of-sufficient-length";
		const created = await create(owner.token, { url: "https://hooks.example.com/", events: ["*"], secret });
		expect(created.json.data.secret).toBe(secret);
		const record = await t.store.webhookEndpoints.get(owner.tenantId, created.json.data.id);
		expect(record?.secretSealed).not.toContain(secret);
		expect(record?.secretSealed.startsWith("v1.")).toBe(true);
		expect(
			(await create(owner.token, { url: "https://hooks.example.com/", events: ["*"], secret: "short" })).status,
		).toBe(422);
	});

	it("refuses malformed URLs, other schemes, http:// and private targets with 422 INVALID_ENDPOINT_URL", async () => {
		t = createTestApp();
		const { token } = await register(t);
		for (const url of [
			"not a url",
			"ftp://hooks.example.com/",
			"javascript:alert(1)",
			"http://hooks.example.com/",
			"https://127.0.0.1/hooks",
			"https://10.1.2.3/",
			"https://192.168.0.10/",
			"https://172.16.5.4/",
			"https://169.254.169.254/latest/meta-data",
			"https://[::1]:8443/",
			"https://[fe80::1]/",
			"https://[fd00::1]/",
			"https://[::ffff:127.0.0.1]/",
			"https://0x7f000001/",
			"https://localhost/hooks",
			"https://api.localhost/",
			"https://user:pass@hooks.example.com/",
		]) {
			const response = await create(token, { url, events: ["*"] });
			expect(response.status, url).toBe(422);
			expect(response.json.error, url).toMatchObject({ type: "validation_error", code: "INVALID_ENDPOINT_URL" });
			expect(response.json.errors, url).toHaveProperty("url");
		}
		expect((await create(token, { url: "https://203.0.113.7/hooks", events: ["*"] })).status).toBe(201);
	});

	it("accepts http:// and local targets with AS2_ALLOW_HTTP=1 and AS2_ALLOW_PRIVATE_TARGETS=1, still refusing other schemes", async () => {
		t = createTestApp({ allowHttp: true, allowPrivateTargets: true });
		const { token } = await register(t);
		expect((await create(token, { url: "http://127.0.0.1:9/hooks", events: ["*"] })).status).toBe(201);
		expect((await create(token, { url: "http://localhost/", events: ["*"] })).status).toBe(201);
		const ftp = await create(token, { url: "ftp://127.0.0.1/", events: ["*"] });
		expect(ftp.json.error.code).toBe("INVALID_ENDPOINT_URL");
	});

	it("requires url and non-empty known events; accepts kinds, categories and *", async () => {
		t = createTestApp();
		const { token } = await register(t);
		const url = "https://hooks.example.com/";
		const missing = await create(token, { events: ["*"] });
		expect([missing.status, Object.keys(missing.json.errors)]).toEqual([422, ["url"]]);
		for (const events of [undefined, [], ["message.bogus"], ["nope.*"], ["message"], [42]]) {
			const response = await create(token, { url, events });
			expect(response.status, JSON.stringify(events)).toBe(422);
			expect(response.json.errors, JSON.stringify(events)).toHaveProperty(
				Array.isArray(events) && events.length === 1 && typeof events[0] === "number" ? "events.0" : "events",
			);
		}
		const ok = await create(token, { url, events: ["message.sent", "partner.*", "*", "webhook.test", "message.sent"] });
		expect(ok.json.data.events).toEqual(["message.sent", "partner.*", "*", "webhook.test"]);
	});

	it("patches url, events, active and secret; only supplied fields change", async () => {
		t = createTestApp();
		const { token } = await register(t);
		const { id } = (await create(token, { url: "https://a.example.com/", events: ["*"] })).json.data;
		t.clock.advance(60);
		const patched = await t.call("PATCH", `/v1/webhook-endpoints/${id}`, {
			token,
			body: { events: ["tenant.*"], active: false },
		});
		expect(patched.status).toBe(200);
		expect(patched.json.data).toMatchObject({
			url: "https://a.example.com/",
			events: ["tenant.*"],
			active: false,
			updated_at: "2026-03-01T09:01:00.000000Z",
		});
		expect(patched.json.data).not.toHaveProperty("secret");
		const secret = await t.call("PATCH", `/v1/webhook-endpoints/${id}`, {
			token,
			body: { secret: "rotated-secret-0123456789" },
		});
		expect(secret.status).toBe(200);
		expect(secret.text).not.toContain("rotated-secret");
		const bad = await t.call("PATCH", `/v1/webhook-endpoints/${id}`, { token, body: { url: "http://a.example.com/" } });
		expect(bad.json.error.code).toBe("INVALID_ENDPOINT_URL");
		const empty = await t.call("PATCH", `/v1/webhook-endpoints/${id}`, { token, body: { events: [] } });
		expect(empty.status).toBe(422);
	});

	it("deletes an endpoint: 200 {id, deleted_at}, then 404", async () => {
		t = createTestApp();
		const { token } = await register(t);
		const { id } = (await create(token, { url: "https://a.example.com/", events: ["*"] })).json.data;
		const deleted = await t.call("DELETE", `/v1/webhook-endpoints/${id}`, { token });
		expect(deleted.json).toEqual({
			message: expect.any(String),
			data: { id, deleted_at: "2026-03-01T09:00:00.000000Z" },
		});
		expect((await t.call("GET", `/v1/webhook-endpoints/${id}`, { token })).status).toBe(404);
		expect((await t.call("DELETE", `/v1/webhook-endpoints/${id}`, { token })).status).toBe(404);
	});

	it("replays create and PATCH with the same Idempotency-Key, creating one endpoint", async () => {
		t = createTestApp();
		const { token } = await register(t);
		const key = { "idempotency-key": "5b0c2f3e-7d4a-4e1b-9c8d-2a3b4c5d6e7f" };
		const body = { url: "https://a.example.com/", events: ["*"] };
		const first = await create(token, body, key);
		const second = await create(token, body, key);
		expect(second.headers.get("idempotent-replayed")).toBe("true");
		expect(second.json).toEqual(first.json);
		expect((await t.call("GET", "/v1/webhook-endpoints", { token })).json.pagination.total).toBe(1);
		const patchKey = { "idempotency-key": "6b0c2f3e-7d4a-4e1b-9c8d-2a3b4c5d6e7f" };
		const path = `/v1/webhook-endpoints/${first.json.data.id}`;
		const p1 = await t.call("PATCH", path, { token, body: { active: false }, headers: patchKey });
		t.clock.advance(5);
		const p2 = await t.call("PATCH", path, { token, body: { active: false }, headers: patchKey });
		expect(p2.headers.get("idempotent-replayed")).toBe("true");
		expect(p2.json).toEqual(p1.json);
	});

	it("needs webhooks:read to read and webhooks:write to change", async () => {
		t = createTestApp();
		const owner = await register(t);
		const { id } = (await create(owner.token, { url: "https://a.example.com/", events: ["*"] })).json.data;
		const reader = await createKey(t, owner.token, {
			scope: "tenant",
			tenant_id: owner.tenantId,
			permissions: ["webhooks:read"],
		});
		const stranger = await createKey(t, owner.token, {
			scope: "tenant",
			tenant_id: owner.tenantId,
			permissions: ["partners:read"],
		});
		expect((await t.call("GET", "/v1/webhook-endpoints", { token: reader })).status).toBe(200);
		expect((await t.call("GET", "/v1/webhook-endpoints-stats", { token: reader })).status).toBe(200);
		expect((await t.call("GET", `/v1/webhook-endpoints/${id}/deliveries`, { token: reader })).status).toBe(200);
		for (const [method, path, body] of [
			["POST", "/v1/webhook-endpoints", { url: "https://b.example.com/", events: ["*"] }],
			["PATCH", `/v1/webhook-endpoints/${id}`, { active: false }],
			["DELETE", `/v1/webhook-endpoints/${id}`, undefined],
			["POST", `/v1/webhook-endpoints/${id}/test`, undefined],
		] as const) {
			const response = await t.call(method, path, { token: reader, body });
			expect(response.status, `${method} ${path}`).toBe(403);
			expect(response.json.error.code).toBe("insufficient_scope");
		}
		expect((await t.call("GET", "/v1/webhook-endpoints", { token: stranger })).status).toBe(403);
	});

	it("keeps each tenant's endpoints to itself (404)", async () => {
		t = createTestApp();
		const owner = await register(t);
		const { id } = (await create(owner.token, { url: "https://a.example.com/", events: ["*"] })).json.data;
		const second = (await t.call("POST", "/v1/tenants", { token: owner.token, body: { name: "Second" } })).json.data.id;
		const inSecond = { "x-tenant-id": second };
		expect((await t.call("GET", `/v1/webhook-endpoints/${id}`, { token: owner.token, headers: inSecond })).status).toBe(
			404,
		);
		expect((await t.call("GET", "/v1/webhook-endpoints", { token: owner.token, headers: inSecond })).json.data).toEqual(
			[],
		);
		const other = await register(t);
		expect((await t.call("PATCH", `/v1/webhook-endpoints/${id}`, { token: other.token, body: {} })).status).toBe(404);
	});
});

describe("POST /v1/webhook-endpoints/{id}/test", () => {
	it("makes one real, signed delivery of webhook.test and answers with its result", async () => {
		t = createTestApp({ allowHttp: true, allowPrivateTargets: true });
		const { token } = await register(t);
		receiver = await startReceiver();
		const { id, secret } = (await create(token, { url: receiver.url, events: ["message.*"] })).json.data;
		const response = await t.call("POST", `/v1/webhook-endpoints/${id}/test`, { token });
		expect(response.status).toBe(200);
		expect(response.json).toEqual({
			message: "Test event delivered",
			data: {
				delivery_id: expect.stringMatching(/^whd_\d{6}$/),
				event: "webhook.test",
				status: "succeeded",
				response_status: 200,
				response_time_ms: expect.any(Number),
				error: null,
			},
		});
		expect(receiver.requests).toHaveLength(1);
		const [request] = receiver.requests;
		expect(request!.headers["x-signature"]).toBe(expectedSignature(secret, request!.body));
		expect(request!.headers["x-webhook-id"]).toBe(response.json.data.delivery_id);
		expect(request!.json).toEqual({
			event: "webhook.test",
			data: { endpoint_id: id, url: receiver.url, message: expect.any(String) },
			timestamp: "2026-03-01T09:00:00.000000Z",
			api_version: "v1",
		});
		const log = await t.call("GET", `/v1/webhook-endpoints/${id}/deliveries`, { token });
		expect(log.json.data[0]).toMatchObject({
			id: response.json.data.delivery_id,
			event: "webhook.test",
			event_id: null,
			status: "succeeded",
			attempts: 1,
			attempt_log: [{ attempt: 1, status: "succeeded", response_status: 200, response_body: "ok", error: null }],
		});
	});

	it("keeps a response body holding NUL as text every store takes (U+FFFD), on every store", async () => {
		t = createTestApp({ allowHttp: true, allowPrivateTargets: true });
		const { token } = await register(t);
		const server = createServer((request, response) => {
			request.resume();
			request.on("end", () => response.writeHead(500).end(Buffer.from("bad\u0000news", "utf8")));
		});
		await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
		try {
			const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
			const { id } = (await create(token, { url, events: ["message.*"] })).json.data;
			const response = await t.call("POST", `/v1/webhook-endpoints/${id}/test`, { token });
			expect(response.status, response.text).toBe(200);
			expect(response.json.data).toMatchObject({ status: "failed", response_status: 500, error: "HTTP 500" });
			const log = await t.call("GET", `/v1/webhook-endpoints/${id}/deliveries`, { token });
			expect(log.json.data[0].attempt_log[0].response_body).toBe("bad\ufffdnews");
		} finally {
			server.closeAllConnections();
			await new Promise((closed) => server.close(closed));
		}
	});

	it("reports a failed attempt (status, error) and does not retry it", async () => {
		t = createTestApp({ allowHttp: true, allowPrivateTargets: true });
		const { token } = await register(t);
		receiver = await startReceiver(() => 503);
		const { id } = (await create(token, { url: receiver.url, events: ["*"] })).json.data;
		await t.call("PATCH", `/v1/webhook-endpoints/${id}`, { token, body: { active: false } });
		const response = await t.call("POST", `/v1/webhook-endpoints/${id}/test`, { token });
		expect(response.status).toBe(200);
		expect(response.json.data).toMatchObject({ status: "failed", response_status: 503, error: "HTTP 503" });
		const [delivery] = (await t.call("GET", `/v1/webhook-endpoints/${id}/deliveries`, { token })).json.data;
		expect(delivery).toMatchObject({ status: "failed", next_attempt_at: null, last_response_status: 503 });
		expect(receiver.requests).toHaveLength(1);
	});

	it("answers 404 for another tenant's endpoint without sending anything", async () => {
		t = createTestApp({ allowHttp: true, allowPrivateTargets: true });
		const owner = await register(t);
		receiver = await startReceiver();
		const { id } = (await create(owner.token, { url: receiver.url, events: ["*"] })).json.data;
		const other = await register(t);
		expect((await t.call("POST", `/v1/webhook-endpoints/${id}/test`, { token: other.token })).status).toBe(404);
		expect(receiver.requests).toHaveLength(0);
	});
});
