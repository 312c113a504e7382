import type { BucketOptions } from "@as2kit/core/store";
import { createSqliteStore } from "@as2kit/storage-sqlite";
import { describe, expect, it } from "vitest";
import { createInboundAdmission } from "../../src/service/messages/inbound-admission.ts";

/** An admission over a fresh store whose bucket takes are counted. */
function admissionOver() {
	const { store, takes } = countingStore();
	return { store, takes, admission: createInboundAdmission(store) };
}

/** `count` messages of `bucket`, all at T0. */
async function admitMany(
	admission: ReturnType<typeof createInboundAdmission>,
	bucket: Omit<BucketOptions, "now">,
	count: number,
) {
	const results = [];
	for (let i = 0; i < count; i++) results.push(await admission.admit({ ...bucket, now: T0 }));
	return results;
}

/** A store whose bucket takes are counted. */
function countingStore() {
	const store = createSqliteStore({ url: ":memory:" });
	const takes: number[] = [];
	const take = store.rateLimits.take.bind(store.rateLimits);
	store.rateLimits.take = async (options) => {
		const result = await take(options);
		takes.push(result.taken);
		return result;
	};
	return { store, takes };
}

const T0 = new Date("2026-03-01T09:00:00.000Z");
const after = (ms: number) => new Date(T0.getTime() + ms);

describe("inbound admission", () => {
	it("takes a few tokens per storage write from a large bucket and spends them locally", async () => {
		const { store, takes, admission } = admissionOver();
		const bucket = { key: "as2:t:p", capacity: 2000, refillPerSecond: 0.001 };
		const results = await admitMany(admission, bucket, 20);
		expect(results.every((r) => r.allowed)).toBe(true);
		// 8 at a time (1% of the capacity, at most 8): 3 writes for 20 messages.
		expect(takes).toEqual([8, 8, 8]);
		// What is held is dropped after a second: the next message takes from the bucket again.
		await admission.admit({ ...bucket, now: after(1500) });
		expect(takes).toEqual([8, 8, 8, 8]);
		// The bucket lost what was taken, spent or not: never more than it holds is admitted.
		const level = await store.rateLimits.take({ ...bucket, now: after(1500) });
		expect(level.remaining).toBe(2000 - 32 - 1);
		await store.close();
	});

	it("takes one token at a time from a small bucket, so a tight limit stays exact", async () => {
		const { store, takes, admission } = admissionOver();
		const results = await admitMany(admission, { key: "as2:t:p", capacity: 3, refillPerSecond: 0.001 }, 4);
		expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
		expect(results[3]?.retryAfterSeconds).toBeGreaterThan(0);
		expect(takes).toEqual([1, 1, 1, 0]);
		await store.close();
	});

	it("keeps the buckets of different partners apart", async () => {
		const { store, admission } = admissionOver();
		const small = { capacity: 200, refillPerSecond: 0.001, now: T0 };
		// 2 at a time (1% of 200): each key spends its own.
		for (let i = 0; i < 200; i++) expect((await admission.admit({ ...small, key: "as2:t:a" })).allowed).toBe(true);
		expect((await admission.admit({ ...small, key: "as2:t:a" })).allowed).toBe(false);
		expect((await admission.admit({ ...small, key: "as2:t:b" })).allowed).toBe(true);
		await store.close();
	});
});
