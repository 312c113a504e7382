import type { As2Store } from "@as2kit/core/store";
import { createSqliteStore } from "@as2kit/storage-sqlite";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { configReads } from "../../src/service/config-cache/config-reads.ts";
import { createVersionedCache, type VersionedCache } from "../../src/service/config-cache/versioned-cache.ts";
import { changedConfigIn, watchConfigWrites } from "../../src/service/config-cache/watch-config-writes.ts";

/**
 * Issue #20: the configuration a message reads at every step is remembered for a short time,
 * versioned so that a change on this instance is never late, even for a read in flight.
 */
describe("the versioned cache", () => {
	let now = 0;
	const clock = () => now;
	beforeEach(() => {
		now = 0;
	});

	it("keeps a value for the TTL, counted from when its read started", () => {
		const cache = createVersionedCache(1000, clock);
		const ticket = cache.begin();
		now = 400;
		cache.put("k", ticket, { v: 1 });
		now = 999;
		expect(cache.get("k")).toEqual({ v: 1 });
		now = 1000;
		expect(cache.get("k")).toBeUndefined();
	});

	it("refuses a read that started before a change, and forgets what was read before it", () => {
		const cache = createVersionedCache(1000, clock);
		cache.put("old", cache.begin(), 1);
		const inFlight = cache.begin();
		cache.invalidate();
		cache.put("k", inFlight, "read before the change");
		expect(cache.get("k")).toBeUndefined();
		expect(cache.get("old")).toBeUndefined();
		cache.put("k", cache.begin(), "read after");
		expect(cache.get("k")).toBe("read after");
	});

	it("starts afresh past its bound", () => {
		const cache = createVersionedCache(1000, clock, 3);
		for (const key of ["a", "b", "c"]) cache.put(key, cache.begin(), key);
		expect(cache.get("c")).toBe("c");
		cache.put("d", cache.begin(), "d");
		expect([cache.get("a"), cache.get("b"), cache.get("c"), cache.get("d")]).toEqual([
			undefined,
			undefined,
			undefined,
			"d",
		]);
	});

	it("remembers through `through` only what `keep` accepts, and reads a miss once", async () => {
		const cache = createVersionedCache(1000, clock);
		const load = vi.fn(async () => null as string | null);
		await cache.through("gone", load, (v) => v !== null);
		await cache.through("gone", load, (v) => v !== null);
		expect(load).toHaveBeenCalledTimes(2);
		const found = vi.fn(async () => "here");
		await cache.through("here", found, () => true);
		expect(await cache.through("here", found, () => true)).toBe("here");
		expect(found).toHaveBeenCalledTimes(1);
	});

	it("shares one read of a key among the callers that miss it while it is in flight", async () => {
		const cache = createVersionedCache(1000, clock);
		let answer!: (value: { v: number }) => void;
		const load = vi.fn(() => new Promise<{ v: number }>((resolve) => (answer = resolve)));
		const callers = [1, 2, 3].map(() => cache.through("k", load, () => true, { share: true }));
		answer({ v: 1 });
		const values = await Promise.all(callers);
		expect(load).toHaveBeenCalledTimes(1);
		expect(values[0]).toEqual({ v: 1 });
		expect(values[1]).toBe(values[0]);
		expect(Object.isFrozen(values[0])).toBe(true);
		expect(await cache.through("k", load, () => true, { share: true })).toBe(values[0]);
		expect(load).toHaveBeenCalledTimes(1);
	});

	it("shares no read with a caller that does not ask to, nor across a change, nor a failed one", async () => {
		const cache = createVersionedCache(1000, clock);
		const answers: Array<(value: string) => void> = [];
		const failures: Array<(error: Error) => void> = [];
		const load = vi.fn(
			() =>
				new Promise<string>((resolve, reject) => {
					answers.push(resolve);
					failures.push(reject);
				}),
		);
		const shared = cache.through("k", load, () => true, { share: true });
		const own = cache.through("k", load, () => true);
		expect(load).toHaveBeenCalledTimes(2);
		cache.invalidate();
		const afterChange = cache.through("k", load, () => true, { share: true });
		expect(load).toHaveBeenCalledTimes(3);
		answers[0]!("read before the change");
		answers[1]!("own read");
		answers[2]!("read after the change");
		expect(await shared).toBe("read before the change");
		expect(await own).toBe("own read");
		expect(await afterChange).toBe("read after the change");
		expect(cache.get("k")).toBe("read after the change");

		const failing = cache.through("f", load, () => true, { share: true });
		const joined = cache.through("f", load, () => true, { share: true });
		failures[3]!(new Error("connection lost"));
		await expect(failing).rejects.toThrow("connection lost");
		await expect(joined).rejects.toThrow("connection lost");
		const again = cache.through("f", load, () => true, { share: true });
		expect(load).toHaveBeenCalledTimes(5);
		answers[4]!("read again");
		expect(await again).toBe("read again");
	});

	it("hands out frozen values: a caller cannot change what the next one reads", () => {
		const cache = createVersionedCache(1000, clock);
		cache.put("k", cache.begin(), { settings: { url: "https://a" }, key: new Uint8Array([1]) });
		const value = cache.get<{ settings: { url: string }; key: Uint8Array }>("k")!;
		expect(() => {
			value.settings.url = "https://b";
		}).toThrow(TypeError);
		expect(value.key[0]).toBe(1);
	});
});

describe("the engine's store, watched for configuration changes", () => {
	let raw: As2Store;
	let cache: VersionedCache;
	let store: As2Store;
	const at = new Date("2026-03-01T09:00:00Z");

	beforeEach(async () => {
		raw = createSqliteStore({ url: ":memory:" });
		cache = createVersionedCache(60_000);
		store = watchConfigWrites(raw, cache);
		await store.accounts.create({
			id: "acc_000001",
			name: "Acme",
			slug: "acme",
			plan: "free",
			status: "active",
			createdAt: at,
			updatedAt: at,
		});
	});
	afterEach(() => raw.close());

	const account = () => configReads(cache, store).account("acc_000001");

	it("serves a remembered account without reading, and reads again after a change made through it", async () => {
		const get = vi.spyOn(raw.accounts, "get");
		expect((await account())!.plan).toBe("free");
		expect((await account())!.plan).toBe("free");
		expect(get).toHaveBeenCalledTimes(1);
		await store.accounts.update("acc_000001", { plan: "starter", updatedAt: at });
		expect((await account())!.plan).toBe("starter");
		expect(get).toHaveBeenCalledTimes(2);
	});

	it("reads an expired or missing entry once for the engine's concurrent requests, not for a transaction", async () => {
		const read = raw.accounts.get.bind(raw.accounts);
		const get = vi.spyOn(raw.accounts, "get");
		const plans = await Promise.all([account(), account(), account()].map(async (pending) => (await pending)!.plan));
		expect(plans).toEqual(["free", "free", "free"]);
		expect(get).toHaveBeenCalledTimes(1);
		// The engine's read held in flight: a transaction's read of the same key does not wait for it
		// (it would hang here if it did), since a read in a transaction may fail with the transaction.
		cache.invalidate();
		let release!: () => void;
		const held = new Promise<void>((resolve) => {
			release = resolve;
		});
		get.mockImplementationOnce(async (id) => {
			const row = await read(id);
			await held;
			return row;
		});
		const root = account();
		const inTransaction = await store.transaction((tx) => configReads(cache, tx).account("acc_000001"));
		expect(inTransaction!.plan).toBe("free");
		release();
		expect((await root)!.plan).toBe("free");
		expect(get).toHaveBeenCalledTimes(2);
	});

	it("does not remember a read that was in flight while a change committed", async () => {
		const get = raw.accounts.get.bind(raw.accounts);
		let release!: () => void;
		const held = new Promise<void>((resolve) => {
			release = resolve;
		});
		// The read sees the old plan, then the change commits before the read is remembered.
		vi.spyOn(raw.accounts, "get").mockImplementationOnce(async (id) => {
			const read = await get(id);
			await held;
			return read;
		});
		const inFlight = account();
		await store.accounts.update("acc_000001", { plan: "starter", updatedAt: at });
		release();
		expect((await inFlight)!.plan).toBe("free");
		expect((await account())!.plan).toBe("starter");
	});

	it("does not keep a read that started while a change was in flight past the change", async () => {
		const update = raw.accounts.update.bind(raw.accounts);
		let release!: () => void;
		const held = new Promise<void>((resolve) => {
			release = resolve;
		});
		vi.spyOn(raw.accounts, "update").mockImplementationOnce(async (...args) => {
			await held;
			return update(...args);
		});
		const change = store.accounts.update("acc_000001", { plan: "starter", updatedAt: at });
		// Another connection reads the old plan before the change commits (PostgreSQL)...
		expect((await account())!.plan).toBe("free");
		release();
		await change;
		// ...and that read is not served once it has.
		expect((await account())!.plan).toBe("starter");
	});

	it("reads through a transaction that changed configuration, and remembers nothing of one rolled back", async () => {
		expect((await account())!.plan).toBe("free");
		await expect(
			store.transaction(async (tx) => {
				expect(changedConfigIn(tx)).toBe(false);
				await tx.accounts.update("acc_000001", { plan: "professional", updatedAt: at });
				expect(changedConfigIn(tx)).toBe(true);
				// Its own change, not the remembered plan...
				expect((await configReads(cache, tx).account("acc_000001"))!.plan).toBe("professional");
				throw new Error("roll back");
			}),
		).rejects.toThrow("roll back");
		// ...and, rolled back, never remembered.
		expect((await account())!.plan).toBe("free");
	});

	it("invalidates again once a transaction that changed configuration has committed", async () => {
		expect((await account())!.plan).toBe("free");
		let between!: ReturnType<VersionedCache["begin"]>;
		await store.transaction(async (tx) => {
			await tx.transaction((inner) => inner.accounts.update("acc_000001", { plan: "starter", updatedAt: at }));
			// A read on another connection (PostgreSQL) starting now still sees the committed plan...
			between = cache.begin();
		});
		// ...and is not kept when it ends after the commit.
		cache.put("account:acc_000001", between, { plan: "free" });
		expect((await account())!.plan).toBe("starter");
	});

	it("keeps what is assigned to it (a test wrapping `transaction`) off the adapter's store", async () => {
		const transaction = store.transaction.bind(store);
		const rawTransaction = raw.transaction;
		let wrapped = 0;
		store.transaction = (fn) => {
			wrapped++;
			return transaction(fn);
		};
		expect(raw.transaction).toBe(rawTransaction);
		expect(await store.transaction((tx) => tx.ids.next("evt_"))).toBe("evt_000001");
		expect(wrapped).toBe(1);
	});

	it("leaves every other repository and method as the store has them", async () => {
		expect(await store.ids.next("msg_")).toBe("msg_000001");
		expect(await store.tenants.findBySlug("acc_000001", "none")).toBeNull();
	});
});
