import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

/**
 * decisions.md, Rate limits: "X-RateLimit-* headers on every /v1 response" — successes of
 * every kind, errors of every kind, downloads and idempotent replays alike. Free plan:
 * X-RateLimit-Limit is 100 (requests per minute), Remaining at most the burst of 20, Reset a
 * Unix time not in the past.
 */
let t: TestApp;
let owner: Awaited<ReturnType<typeof register>>;
let key: string;
let partnerId: string;
let messageId: string;

beforeEach(async () => {
	t = createTestApp({}, (app) =>
		app.get("/v1/__explode", () => {
			throw new Error("boom");
		}),
	);
	owner = await register(t, "Headers");
	key = await createKey(t, owner.token, { scope: "account", environment: "test", permissions: ["*"] });
	partnerId = (
		await t.call("POST", "/v1/partners", {
			token: key,
			body: { name: "Buyer", as2_id: "BUYER", url: "https://buyer.example/as2" },
		})
	).json.data.id;
	messageId = (
		await t.call("POST", "/v1/messages", {
			token: key,
			body: { partner_id: partnerId, content_type: "text/plain", payload: { content: "hello" } },
		})
	).json.data.id;
});
afterEach(() => t.close());

interface Probe {
	method: string;
	path: string;
	status: number;
	token?: string | null;
	body?: unknown;
	headers?: Record<string, string>;
}

function expectRateLimitHeaders(response: { status: number; headers: Headers; text: string }, label: string) {
	const limit = response.headers.get("x-ratelimit-limit");
	const remaining = response.headers.get("x-ratelimit-remaining");
	const reset = response.headers.get("x-ratelimit-reset");
	expect(limit, `${label}: X-RateLimit-Limit`).toBe("100");
	expect(remaining, `${label}: X-RateLimit-Remaining`).toMatch(/^\d+$/);
	expect(Number(remaining), label).toBeLessThanOrEqual(20);
	expect(reset, `${label}: X-RateLimit-Reset`).toMatch(/^\d+$/);
	expect(Number(reset), label).toBeGreaterThanOrEqual(Math.floor(t.clock.now().getTime() / 1000));
}

async function sweep(probes: Probe[]) {
	for (const probe of probes) {
		t.clock.advance(60); // a full bucket each time: every probe is answered, none is a 429
		const token = probe.token === null ? undefined : (probe.token ?? key);
		const response = await t.call(probe.method, probe.path, { token, body: probe.body, headers: probe.headers });
		const label = `${probe.method} ${probe.path} → ${response.status}`;
		expect(response.status, `${label} ${response.text.slice(0, 200)}`).toBe(probe.status);
		expectRateLimitHeaders(response, label);
	}
}

describe("X-RateLimit-* on every /v1 response (Free plan)", () => {
	it("on successes of every endpoint family", async () => {
		await sweep([
			{ method: "GET", path: "/v1/account", status: 200 },
			{ method: "GET", path: "/v1/tenants", status: 200 },
			{ method: "GET", path: "/v1/api-keys", status: 200 },
			{ method: "GET", path: "/v1/partners", status: 200 },
			{ method: "GET", path: `/v1/partners/${partnerId}`, status: 200 },
			{
				method: "PATCH",
				path: `/v1/partners/${partnerId}`,
				body: { name: "Buyer Renamed" },
				status: 200,
			},
			{ method: "GET", path: "/v1/certificates", status: 200 },
			{ method: "GET", path: "/v1/messages", status: 200 },
			{ method: "GET", path: `/v1/messages/${messageId}`, status: 200 },
			{
				method: "POST",
				path: "/v1/messages",
				body: { partner_id: partnerId, content_type: "text/plain", payload: { content: "again" } },
				status: 202,
			},
			{
				method: "POST",
				path: "/v1/webhook-endpoints",
				body: { url: "https://hooks.example.com/x", events: ["*"] },
				status: 201,
			},
			{ method: "GET", path: "/v1/webhook-endpoints", status: 200 },
			{ method: "GET", path: "/v1/webhook-endpoints-stats", status: 200 },
			{ method: "POST", path: "/v1/epcis/validate", body: { document: "<x/>" }, status: 200 },
			{ method: "DELETE", path: `/v1/partners/${partnerId}`, status: 200 },
		]);
	});

	it("on a payload download and on an idempotent replay", async () => {
		t.clock.advance(60);
		const download = await t.call("GET", `/v1/messages/${messageId}/payload`, { token: key });
		expect(download.status).toBe(200);
		expect(download.text).toBe("hello");
		expectRateLimitHeaders(download, "payload download");
		const headers = { "idempotency-key": randomUUID() };
		const body = { name: "Acme", as2_id: "ACME", url: "https://acme.example/as2" };
		await t.call("POST", "/v1/partners", { token: key, body, headers });
		t.clock.advance(60);
		const replay = await t.call("POST", "/v1/partners", { token: key, body, headers });
		expect(replay.headers.get("idempotent-replayed")).toBe("true");
		expectRateLimitHeaders(replay, "idempotent replay");
	});

	it("on 4xx and 5xx answers", async () => {
		const tenantKey = await createKey(t, owner.token, {
			scope: "tenant",
			tenant_id: owner.tenantId,
			permissions: ["partners:read"],
		});
		await sweep([
			// 404: a missing resource, an unknown /v1 route
			{ method: "GET", path: "/v1/partners/prt_999999", status: 404 },
			{ method: "GET", path: "/v1/messages/msg_999999", status: 404 },
			{ method: "GET", path: "/v1/nothing-here", status: 404 },
			// 422: a body and a query that fail validation, a reused idempotency key's format
			{ method: "POST", path: "/v1/partners", body: { name: "" }, status: 422 },
			{ method: "GET", path: "/v1/messages?per_page=1000", status: 422 },
			{
				method: "POST",
				path: "/v1/partners",
				body: { name: "X", as2_id: "X", url: "https://x.example/as2" },
				headers: { "idempotency-key": "not-a-uuid" },
				status: 422,
			},
			// 400, 415, 406
			{ method: "POST", path: "/v1/tenants", body: '{"name": ', status: 400 },
			{
				method: "POST",
				path: "/v1/tenants",
				body: "name=x",
				headers: { "content-type": "text/plain" },
				status: 415,
			},
			{ method: "GET", path: "/v1/tenants", headers: { accept: "text/html" }, status: 406 },
			// 413: a JSON body over the limit
			{ method: "POST", path: "/v1/tenants", body: { name: "x".repeat(2 * 1024 * 1024) }, status: 413 },
			// 403: insufficient scope
			{ method: "GET", path: "/v1/tenants", token: tenantKey, status: 403 },
			// 404 PARTNER_NOT_FOUND from the message pipeline
			{
				method: "POST",
				path: "/v1/messages",
				body: { partner_id: "prt_999999", content_type: "text/plain", payload: { content: "x" } },
				status: 404,
			},
			// 500
			{ method: "GET", path: "/v1/__explode", status: 500 },
		]);
	});

	it("on refusals of the credential's X-Tenant-ID: an unknown tenant, a tenant outside the key's grant (404)", async () => {
		const other = await t.call("POST", "/v1/tenants", { token: key, body: { name: "Other" } });
		const restricted = await createKey(t, owner.token, {
			scope: "account",
			permissions: ["*"],
			allowed_tenant_ids: [owner.tenantId],
		});
		await sweep([
			{ method: "GET", path: "/v1/partners", headers: { "x-tenant-id": "tnt_999999" }, status: 404 },
			{ method: "GET", path: "/v1/partners", headers: { "x-tenant-id": "garbage" }, status: 404 },
			{
				method: "GET",
				path: "/v1/partners",
				token: restricted,
				headers: { "x-tenant-id": other.json.data.id },
				status: 404,
			},
		]);
	});

	it("on 401 answers (the per-address budget) and on the 429 itself", async () => {
		await sweep([
			{ method: "GET", path: "/v1/partners", token: null, status: 401 },
			{ method: "GET", path: "/v1/partners", token: "pk_test_unknown", status: 401 },
			// Without a valid key the answer is 401 whatever else is wrong with the request.
			{
				method: "POST",
				path: "/v1/tenants",
				token: null,
				body: "name=x",
				headers: { "content-type": "text/plain" },
				status: 401,
			},
		]);
		t.clock.advance(60);
		const statuses: number[] = [];
		let last: Awaited<ReturnType<typeof t.call>> | undefined;
		for (let i = 0; i < 21; i++) {
			last = await t.call("GET", "/v1/partners", { token: key });
			statuses.push(last.status);
			expectRateLimitHeaders(last, `request ${i + 1}`);
		}
		expect(statuses.at(-1)).toBe(429);
		expect(last!.headers.get("x-ratelimit-remaining")).toBe("0");
	});
});
