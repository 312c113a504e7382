import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createFsBlobStore } from "../../src/blobs/fs-blob-store.ts";
import { createService } from "../../src/service/create-service.ts";
import { CREDENTIAL_CACHE_TTL_MS, createCredentialCache } from "../../src/service/credential-cache.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

/**
 * Issue #20: API-key authentication is remembered for a second, so a request with a known key
 * reads nothing before its work; yet a revocation, an expiry or a plan change is never late on
 * the instance that made it (README, Authentication).
 */
let t: TestApp;
let owner: Awaited<ReturnType<typeof register>>;
beforeEach(async () => {
	t = createTestApp();
	owner = await register(t, "Cached");
});
afterEach(() => t.close());

const accountKey = (extra: Record<string, unknown> = {}) =>
	createKey(t, owner.token, { scope: "account", environment: "test", permissions: ["*"], ...extra });

describe("a remembered API key", () => {
	it("is read from the store once for many requests", async () => {
		// The cache's clock stands still: five requests on a loaded machine may take longer than its
		// TTL, and what is tested is that they share one read within it.
		vi.useFakeTimers({ toFake: ["performance"] });
		try {
			const key = await accountKey();
			// Assigned rather than spied on: the PostgreSQL test store's repositories are proxies.
			const findByHash = vi.fn(t.store.apiKeys.findByHash);
			t.store.apiKeys.findByHash = findByHash;
			for (let i = 0; i < 5; i++) expect((await t.call("GET", "/v1/partners", { token: key })).status).toBe(200);
			expect(findByHash).toHaveBeenCalledTimes(1);
		} finally {
			vi.useRealTimers();
		}
	});

	it("is refused at once after it is revoked, though it was used the moment before", async () => {
		const key = await accountKey();
		expect((await t.call("GET", "/v1/partners", { token: key })).status).toBe(200);
		const revoked = await t.call("DELETE", "/v1/api-keys/key_000001", { token: owner.token });
		expect(revoked.status).toBe(200);
		const after = await t.call("GET", "/v1/partners", { token: key });
		expect(after.status).toBe(401);
		expect(after.json.error.code).toBe("invalid_api_key");
	});

	it("is refused at once when its expires_at passes", async () => {
		const key = await accountKey({ expires_at: "2026-03-01T10:00:00Z" });
		expect((await t.call("GET", "/v1/partners", { token: key })).status).toBe(200);
		t.clock.advance(3600);
		const after = await t.call("GET", "/v1/partners", { token: key });
		expect(after.status).toBe(401);
		expect(after.json.error.code).toBe("expired_api_key");
	});

	it("carries a new plan from the next request after the change", async () => {
		const key = await accountKey();
		const before = await t.call("GET", "/v1/partners", { token: key });
		expect(before.headers.get("x-ratelimit-limit")).toBe("100");
		const changed = await t.call("PATCH", "/v1/account", { token: key, body: { plan: "starter" } });
		expect(changed.status).toBe(200);
		const after = await t.call("GET", "/v1/partners", { token: key });
		expect(after.headers.get("x-ratelimit-limit")).toBe("300");
	});

	it("is refused by another instance within the cache's bound of a revocation there", async () => {
		vi.useFakeTimers({ toFake: ["performance"] });
		try {
			const key = await accountKey();
			// A second instance on the same database.
			const other = createService({
				store: t.store,
				blobs: createFsBlobStore(t.blobDir),
				now: t.clock.now,
				config: { masterKey: new Uint8Array(32).fill(7), passwordCostLog2: 10 },
			});
			await other.authenticate(key, null);
			expect((await t.call("DELETE", "/v1/api-keys/key_000001", { token: owner.token })).status).toBe(200);
			// Within the bound the other instance may still accept it (README, Authentication)...
			await expect(other.authenticate(key, null)).resolves.toMatchObject({ credentialId: "key_000001" });
			vi.advanceTimersByTime(CREDENTIAL_CACHE_TTL_MS);
			// ...past it, never.
			await expect(other.authenticate(key, null)).rejects.toMatchObject({ code: "invalid_api_key" });
		} finally {
			vi.useRealTimers();
		}
	});
});

describe("the credential cache", () => {
	const principal = { credentialId: "key_1" } as never;
	const record = { id: "key_1" } as never;

	it("drops what a lookup read while a change committed", () => {
		const cache = createCredentialCache(1000, () => 0);
		const started = cache.begin();
		cache.invalidate();
		cache.put("k", started, record, principal);
		expect(cache.get("k")).toBeNull();
	});

	it("forgets an entry once its time is up, and everything on invalidate", () => {
		let now = 0;
		const cache = createCredentialCache(1000, () => now);
		cache.put("a", cache.begin(), record, principal);
		cache.put("b", cache.begin(), record, principal);
		now = 999;
		expect(cache.get("a")).not.toBeNull();
		now = 1000;
		expect(cache.get("a")).toBeNull();
		now = 0;
		cache.invalidate();
		expect(cache.get("b")).toBeNull();
	});

	it("invalidates after a change fails too, and passes its error on", async () => {
		const cache = createCredentialCache(1000, () => 0);
		cache.put("a", cache.begin(), record, principal);
		await expect(cache.invalidateAfter(() => Promise.reject(new Error("rolled back")))).rejects.toThrow("rolled back");
		expect(cache.get("a")).toBeNull();
	});
});
