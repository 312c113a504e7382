import { afterEach, describe, expect, it } from "vitest";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
afterEach(() => t.close());

describe("rate limits (token bucket per account, injected clock)", () => {
	it("allows the Free plan's burst of 20, then 429 with Retry-After; refills at 100/min", async () => {
		t = createTestApp();
		const owner = await register(t);
		const key = await createKey(t, owner.token, { scope: "account", permissions: ["*"] });
		t.clock.advance(60); // a full bucket: the setup above spent tokens
		const remaining: number[] = [];
		for (let i = 0; i < 20; i++) {
			const response = await t.call("GET", "/v1/tenants", { token: key });
			expect(response.status).toBe(200);
			expect(response.headers.get("x-ratelimit-limit")).toBe("100");
			remaining.push(Number(response.headers.get("x-ratelimit-remaining")));
		}
		expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => 19 - i));
		const refused = await t.call("GET", "/v1/tenants", { token: key });
		expect(refused.status).toBe(429);
		expect(refused.json.error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" });
		expect(refused.headers.get("retry-after")).toBe("1");
		expect(refused.headers.get("x-ratelimit-retry-after")).toBe("1");
		expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
		// The bucket is full again 20 tokens / (100/60 per s) = 12 s after the last take.
		expect(Number(refused.headers.get("x-ratelimit-reset"))).toBe(Math.ceil(t.clock.now().getTime() / 1000) + 12);
		t.clock.advance(0.6); // one token takes 0.6 s
		expect((await t.call("GET", "/v1/tenants", { token: key })).status).toBe(200);
		expect((await t.call("GET", "/v1/tenants", { token: key })).status).toBe(429);
	});

	it("shares one budget between the keys of an account, not between accounts", async () => {
		t = createTestApp();
		const a = await register(t);
		const b = await register(t);
		const keyA1 = await createKey(t, a.token, { scope: "account", permissions: ["*"] });
		const keyA2 = await createKey(t, a.token, { scope: "tenant", tenant_id: a.tenantId, permissions: ["*"] });
		const keyB = await createKey(t, b.token, { scope: "account", permissions: ["*"] });
		t.clock.advance(60);
		for (let i = 0; i < 10; i++) await t.call("GET", "/v1/api-keys", { token: keyA1 });
		for (let i = 0; i < 10; i++) await t.call("GET", "/v1/api-keys", { token: keyA2 });
		expect((await t.call("GET", "/v1/api-keys", { token: keyA2 })).status).toBe(429);
		expect((await t.call("GET", "/v1/api-keys", { token: keyB })).status).toBe(200);
	});

	it("limits requests in flight to the plan's concurrency (5 on Free) with concurrency_limit_exceeded", async () => {
		// Barriers, not a scheduling window: the five are known to be in flight once each has
		// entered the handler, which holds them until `release()`. A request that gets past the
		// limit answers at once, so a broken limit fails instead of hanging.
		let release!: () => void;
		const gate = new Promise<void>((resolve) => {
			release = resolve;
		});
		let entered = 0;
		let fiveEntered!: () => void;
		const fiveInFlight = new Promise<void>((resolve) => {
			fiveEntered = resolve;
		});
		t = createTestApp({}, (app) =>
			app.get("/v1/__slow", async (c) => {
				entered += 1;
				if (entered === 5) fiveEntered();
				if (entered <= 5) await gate;
				return c.json({ ok: true });
			}),
		);
		const owner = await register(t);
		const inFlight = Array.from({ length: 5 }, () => t.call("GET", "/v1/__slow", { token: owner.token }));
		await fiveInFlight;
		const sixth = await t.call("GET", "/v1/__slow", { token: owner.token });
		expect(sixth.status).toBe(429);
		expect(sixth.json.error.code).toBe("concurrency_limit_exceeded");
		expect(sixth.headers.get("retry-after")).toBe("1");
		release();
		expect((await Promise.all(inFlight)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
		expect((await t.call("GET", "/v1/__slow", { token: owner.token })).status).toBe(200);
	});

	it("limits requests without a valid credential per client address", async () => {
		t = createTestApp();
		const statuses: number[] = [];
		for (let i = 0; i < 22; i++) statuses.push((await t.call("GET", "/v1/tenants", { token: "pk_live_guess" })).status);
		expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
		expect(statuses.slice(20)).toEqual([429, 429]);
	});

	it("leaves Enterprise unlimited unless configured, without X-RateLimit headers", async () => {
		t = createTestApp({ defaultPlan: "enterprise" });
		const owner = await register(t);
		for (let i = 0; i < 50; i++) {
			const response = await t.call("GET", "/v1/tenants", { token: owner.token });
			expect(response.status).toBe(200);
			expect(response.headers.get("x-ratelimit-limit")).toBeNull();
		}
	});

	it("applies configured Enterprise limits", async () => {
		t = createTestApp({
			defaultPlan: "enterprise",
			enterpriseLimits: { requestsPerMinute: 6000, burst: 3, concurrent: 50 },
		});
		const owner = await register(t);
		t.clock.advance(10);
		const statuses = [];
		for (let i = 0; i < 4; i++) statuses.push((await t.call("GET", "/v1/tenants", { token: owner.token })).status);
		expect(statuses).toEqual([200, 200, 200, 429]);
	});
});
