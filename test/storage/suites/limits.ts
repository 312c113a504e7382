import { STORAGE_PERIOD } from "@as2kit/core/store";
import { expect } from "vitest";
import { at, T0, twoAccounts } from "./fixtures.ts";
import { attempt } from "./message-attempts.ts";
import { message } from "./messages.ts";
import type { ConformanceTest } from "./types.ts";

const bucket = { key: "acc_000001", capacity: 3, refillPerSecond: 1 };

export const limitTests = {
	"rate limits - a full bucket allows its capacity, then refuses with a wait": async ({ store }) => {
		const results = [];
		for (let i = 0; i < 4; i++) results.push(await store.rateLimits.take({ ...bucket, now: T0 }));
		expect(results.map((r) => [r.allowed, r.remaining])).toEqual([
			[true, 2],
			[true, 1],
			[true, 0],
			[false, 0],
		]);
		expect(results[3]?.retryAfterSeconds).toBe(1);
		expect(results[2]?.resetAt).toEqual(at(3));
	},
	"rate limits - refills with time, never above capacity": async ({ store }) => {
		for (let i = 0; i < 3; i++) await store.rateLimits.take({ ...bucket, now: T0 });
		expect((await store.rateLimits.take({ ...bucket, now: at(1.5) })).allowed).toBe(true);
		expect((await store.rateLimits.take({ ...bucket, now: at(1.5) })).allowed).toBe(false);
		const later = await store.rateLimits.take({ ...bucket, now: at(1000) });
		expect([later.allowed, later.remaining]).toEqual([true, 2]);
	},
	"rate limits - concurrent takes never exceed the capacity": async ({ store }) => {
		const results = await Promise.all(Array.from({ length: 10 }, () => store.rateLimits.take({ ...bucket, now: T0 })));
		expect(results.filter((r) => r.allowed)).toHaveLength(3);
	},
	"rate limits - takes whose clocks arrive out of order refill each second once": async ({ store }) => {
		// Requests read the clock, then wait for the bucket: a later reading may take first.
		for (let i = 0; i < 3; i++) await store.rateLimits.take({ ...bucket, now: T0 });
		expect((await store.rateLimits.take({ ...bucket, now: at(2) })).allowed).toBe(true);
		expect((await store.rateLimits.take({ ...bucket, now: at(1) })).allowed).toBe(true);
		// T0 to 2 s refilled two tokens, both taken; the "1 s" take must not refill 1 to 2 s again.
		expect((await store.rateLimits.take({ ...bucket, now: at(2) })).allowed).toBe(false);
	},
	"rate limits - upTo takes as many whole tokens as there are, up to it": async ({ store }) => {
		const five = { key: "partner:1", capacity: 5, refillPerSecond: 1 };
		const results = [];
		for (let i = 0; i < 3; i++) results.push(await store.rateLimits.take({ ...five, upTo: 3, now: T0 }));
		expect(results.map((r) => [r.allowed, r.taken, r.remaining])).toEqual([
			[true, 3, 2],
			[true, 2, 0],
			[false, 0, 0],
		]);
		expect(results[2]?.retryAfterSeconds).toBe(1);
		// 1.5 s later, 1.5 tokens: one whole one is taken, the half stays.
		const later = await store.rateLimits.take({ ...five, upTo: 3, now: at(1.5) });
		expect([later.taken, later.remaining]).toEqual([1, 0]);
		expect((await store.rateLimits.take({ ...five, now: at(2) })).taken).toBe(1);
	},
	"rate limits - concurrency slots are limited, released, and expire": async ({ store }) => {
		const slot = { key: "acc_000001", limit: 2, now: T0, expiresAt: at(60) };
		const a = await store.rateLimits.acquireSlot(slot);
		const b = await store.rateLimits.acquireSlot(slot);
		expect(a).not.toBeNull();
		expect(b).not.toBeNull();
		expect(await store.rateLimits.acquireSlot(slot)).toBeNull();
		expect(await store.rateLimits.acquireSlot({ ...slot, key: "acc_000002" })).not.toBeNull();
		await store.rateLimits.releaseSlot(a!);
		expect(await store.rateLimits.acquireSlot(slot)).not.toBeNull();
		expect(await store.rateLimits.acquireSlot({ ...slot, now: at(61), expiresAt: at(120) })).not.toBeNull();
	},
	"usage - counters add up per account, period and metric; thresholds fire once": async ({ store }) => {
		const counter = { accountId: "acc_000001", period: "2026-01", metric: "messages" };
		expect(await store.usage.get(counter)).toBe(0);
		expect(await store.usage.increment({ ...counter, by: 1 })).toBe(1);
		expect(await store.usage.increment({ ...counter, by: 5 })).toBe(6);
		expect(await store.usage.get({ ...counter, period: "2026-02" })).toBe(0);
		await Promise.all(Array.from({ length: 10 }, () => store.usage.increment({ ...counter, by: 1 })));
		expect(await store.usage.get(counter)).toBe(16);
		expect(await store.usage.markThreshold({ ...counter, threshold: 75 })).toBe(true);
		expect(await store.usage.markThreshold({ ...counter, threshold: 75 })).toBe(false);
		expect(await store.usage.markThreshold({ ...counter, threshold: 90 })).toBe(true);
	},
	"usage - several counters of one account and period added up at once": async ({ store }) => {
		const counters = { accountId: "acc_000001", period: "2026-01" };
		const get = (metric: string) => store.usage.get({ ...counters, metric });
		expect(await store.usage.incrementMany({ ...counters, by: { messages: 1, bytes: 3_000_000_000 } })).toEqual({
			messages: 1,
			bytes: 3_000_000_000,
		});
		await store.usage.increment({ ...counters, metric: "messages", by: 4 });
		await Promise.all(
			Array.from({ length: 10 }, () => store.usage.incrementMany({ ...counters, by: { messages: 1, bytes: 10 } })),
		);
		expect(
			await store.transaction((tx) => tx.usage.incrementMany({ ...counters, by: { messages: 1, bytes: 5 } })),
		).toEqual({ messages: 16, bytes: 3_000_000_105 });
		expect(await get("messages")).toBe(16);
		expect(await get("bytes")).toBe(3_000_000_105);
		expect(await store.usage.get({ ...counters, period: "2026-02", metric: "messages" })).toBe(0);
	},
	// The service's allowance (countLiveSend): each send counts itself in its message's
	// transaction and rolls back when the month's total with it is past the limit. Sends racing
	// for the last free messages must each see a total no other committed send saw, so that
	// exactly as many commit as there was room for (PostgreSQL: the row is locked from the
	// upsert to the end of the transaction; SQLite: one writer).
	"usage - sends racing for the last free messages: exactly as many commit as there was room for": async ({
		store,
	}) => {
		const counter = { accountId: "acc_000001", period: "2026-01" };
		const limit = 10;
		await store.usage.incrementMany({ ...counter, by: { live_messages: limit - 2, live_bytes: 0 } });
		const sends = await Promise.allSettled(
			Array.from({ length: 6 }, () =>
				store.transaction(async (tx) => {
					const counted = await tx.usage.incrementMany({ ...counter, by: { live_messages: 1, live_bytes: 100 } });
					if (counted.live_messages! > limit) throw new Error("allowance spent");
					return counted.live_messages;
				}),
			),
		);
		const committed = sends.flatMap((send) => (send.status === "fulfilled" ? [send.value] : []));
		expect(committed.sort((a, b) => a! - b!)).toEqual([limit - 1, limit]);
		expect(sends.filter((send) => send.status === "rejected")).toHaveLength(4);
		expect(await store.usage.get({ ...counter, metric: "live_messages" })).toBe(limit);
		expect(await store.usage.get({ ...counter, metric: "live_bytes" })).toBe(200);
	},
	"usage - storage measured per account: payloads and wire captures within retention, replacing the last measure":
		async ({ store }) => {
			await twoAccounts(store);
			const stored = (accountId: string, metric: string) =>
				store.usage.get({ accountId, period: STORAGE_PERIOD, metric });
			await store.messages.create(message("msg_000001", { bytes: 3_000_000_000 }));
			await store.messages.create(message("msg_000002", { bytes: 500 }));
			await store.messages.create(
				message("msg_000003", { accountId: "acc_000002", tenantId: "tnt_000002", messageId: "m3@x", bytes: 7 }),
			);
			const capture = (bytes: number) => ({ head: "POST / HTTP/1.1\r\n\r\n", blobKey: `wire/${bytes}`, bytes });
			await store.messageAttempts.create(
				attempt(1, { request: capture(100), response: capture(20), mdn: capture(3), wireExpiresAt: at(60) }),
			);
			await store.messageAttempts.create(attempt(2, { request: capture(1000), wireExpiresAt: at(60) }));
			// Purged: its captures are gone, only the attempt stays.
			await store.messageAttempts.create(attempt(3));
			await store.transaction((tx) => tx.usage.measureStorage());
			expect(await stored("acc_000001", "payload_bytes")).toBe(3_000_000_500);
			expect(await stored("acc_000001", "wire_bytes")).toBe(1123);
			expect(await stored("acc_000002", "payload_bytes")).toBe(7);
			expect(await stored("acc_000002", "wire_bytes")).toBe(0);
			await store.messageAttempts.update("msg_000001", 2, { request: null, wireExpiresAt: null });
			await store.transaction((tx) => tx.usage.measureStorage());
			expect(await stored("acc_000001", "wire_bytes")).toBe(123);
			await store.messageAttempts.update("msg_000001", 1, {
				request: null,
				response: null,
				mdn: null,
				wireExpiresAt: null,
			});
			await store.transaction((tx) => tx.usage.measureStorage());
			// No capture left: the account's figure is 0, not the last measure.
			expect(await stored("acc_000001", "wire_bytes")).toBe(0);
			expect(await stored("acc_000001", "payload_bytes")).toBe(3_000_000_500);
			const listed = await store.usage.listStorage();
			expect(listed.sort((x, y) => `${x.accountId}${x.metric}`.localeCompare(`${y.accountId}${y.metric}`))).toEqual([
				{ accountId: "acc_000001", metric: "payload_bytes", value: 3_000_000_500 },
				{ accountId: "acc_000002", metric: "payload_bytes", value: 7 },
			]);
		},
} satisfies Record<string, ConformanceTest>;
