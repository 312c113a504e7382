import { expect } from "vitest";
import { at, T0 } from "./fixtures.ts";
import { message } from "./messages.ts";
import type { ConformanceTest } from "./types.ts";

const lease = { workerId: "w1", leaseMs: 30_000 };

export const jobTests = {
	"jobs - claimed when due, by priority then age, payload intact": async ({ store }) => {
		await store.jobs.enqueue({ kind: "a", payload: { n: 1, list: ["x"] }, runAt: at(2) }, T0);
		await store.jobs.enqueue({ kind: "a", payload: { n: 2 }, runAt: at(1) }, T0);
		await store.jobs.enqueue({ kind: "a", payload: { n: 3 }, runAt: at(3), priority: 10 }, T0);
		await store.jobs.enqueue({ kind: "a", payload: { n: 4 }, runAt: at(100) }, T0);
		expect(await store.jobs.claim({ ...lease, limit: 10, now: T0 })).toEqual([]);
		const claimed = await store.jobs.claim({ ...lease, limit: 10, now: at(5) });
		expect(claimed.map((j) => j.payload.n)).toEqual([3, 2, 1]);
		expect(claimed[2]).toMatchObject({ kind: "a", payload: { n: 1, list: ["x"] }, attempts: 1, lockedBy: "w1" });
		expect(claimed[2]?.lockedUntil).toEqual(at(35));
	},
	"jobs - a claimed job is not claimed again until its lease expires": async ({ store }) => {
		await store.jobs.enqueue({ kind: "a", payload: {}, runAt: T0 }, T0);
		expect(await store.jobs.claim({ ...lease, limit: 1, now: T0 })).toHaveLength(1);
		expect(await store.jobs.claim({ workerId: "w2", leaseMs: 30_000, limit: 1, now: at(29) })).toHaveLength(0);
		const again = await store.jobs.claim({ workerId: "w2", leaseMs: 30_000, limit: 1, now: at(31) });
		expect(again.map((j) => [j.lockedBy, j.attempts])).toEqual([["w2", 2]]);
		// The first worker lost its lease: it can neither complete nor retry the job.
		expect(await store.jobs.complete(again[0]!.id, "w1")).toBe(false);
		expect(await store.jobs.retry(again[0]!.id, "w1", { runAt: at(40), error: "x" })).toBe(false);
		expect(await store.jobs.complete(again[0]!.id, "w2")).toBe(true);
		expect(await store.jobs.get(again[0]!.id)).toBeNull();
	},
	"jobs - concurrent claimers never share a job": async ({ store }) => {
		for (let i = 0; i < 20; i++) await store.jobs.enqueue({ kind: "a", payload: { i }, runAt: T0 }, T0);
		const batches = await Promise.all(
			Array.from({ length: 8 }, (_, w) => store.jobs.claim({ workerId: `w${w}`, leaseMs: 1000, limit: 3, now: T0 })),
		);
		const ids = batches.flat().map((j) => j.id);
		expect(ids).toHaveLength(20);
		expect(new Set(ids).size).toBe(20);
	},
	"jobs - retry unlocks for later with the error kept; extendLease keeps it held": async ({ store }) => {
		const job = (await store.jobs.enqueue({ kind: "a", payload: {}, runAt: T0 }, T0))!;
		await store.jobs.claim({ ...lease, limit: 1, now: T0 });
		expect(await store.jobs.extendLease(job.id, "w1", at(100))).toBe(true);
		expect(await store.jobs.claim({ workerId: "w2", leaseMs: 1, limit: 1, now: at(50) })).toHaveLength(0);
		expect(await store.jobs.retry(job.id, "w1", { runAt: at(200), error: "boom" })).toBe(true);
		expect(await store.jobs.get(job.id)).toMatchObject({
			lockedBy: null,
			lastError: "boom",
			runAt: at(200),
			attempts: 1,
		});
		expect(await store.jobs.claim({ ...lease, limit: 1, now: at(199) })).toHaveLength(0);
		expect(await store.jobs.claim({ ...lease, limit: 1, now: at(200) })).toHaveLength(1);
	},
	"jobs - cancelByKey and rescheduleByKey act on an unheld job only": async ({ store }) => {
		const job = (await store.jobs.enqueue({ kind: "send", key: "send:1", payload: {}, runAt: at(100) }, T0))!;
		expect(await store.jobs.rescheduleByKey("send:1", T0, T0)).toBe("done");
		expect(await store.jobs.get(job.id)).toMatchObject({ runAt: T0 });
		expect(await store.jobs.rescheduleByKey("send:none", T0, T0)).toBe("none");
		expect(await store.jobs.cancelByKey("send:none", T0)).toBe("none");
		// Held by a worker: left to it, until its lease runs out.
		await store.jobs.claim({ ...lease, limit: 1, now: T0 });
		expect(await store.jobs.cancelByKey("send:1", T0)).toBe("leased");
		expect(await store.jobs.rescheduleByKey("send:1", T0, T0)).toBe("leased");
		expect(await store.jobs.get(job.id)).not.toBeNull();
		const expired = at(lease.leaseMs + 1);
		expect(await store.jobs.cancelByKey("send:1", expired)).toBe("done");
		expect(await store.jobs.get(job.id)).toBeNull();
		expect(await store.jobs.complete(job.id, "w1")).toBe(false);
		// The key is free for a new job.
		expect(await store.jobs.enqueue({ kind: "send", key: "send:1", payload: {}, runAt: T0 }, T0)).not.toBeNull();
	},
	"jobs - kinds filter claims; keys de-duplicate live jobs only": async ({ store }) => {
		expect(await store.jobs.enqueue({ kind: "scan", key: "scan:1", payload: {}, runAt: T0 }, T0)).not.toBeNull();
		expect(await store.jobs.enqueue({ kind: "scan", key: "scan:1", payload: {}, runAt: T0 }, T0)).toBeNull();
		await store.jobs.enqueue({ kind: "other", payload: {}, runAt: T0 }, T0);
		const claimed = await store.jobs.claim({ ...lease, kinds: ["scan"], limit: 10, now: T0 });
		expect(claimed.map((j) => j.kind)).toEqual(["scan"]);
		expect((await store.jobs.list({ kind: "other" })).length).toBe(1);
		await store.jobs.complete(claimed[0]!.id, "w1");
		expect(await store.jobs.enqueue({ kind: "scan", key: "scan:1", payload: {}, runAt: T0 }, T0)).not.toBeNull();
	},
	"jobs - enqueueClaimed writes the job as a claim leaves it: held until its lease runs out, then claimed again":
		async ({ store }) => {
			const handed = await store.jobs.enqueueClaimed(
				{ kind: "send", key: "send:1", payload: { n: 1 }, priority: 10, runAt: T0 },
				T0,
				{ workerId: "w1", lockedUntil: at(30) },
			);
			expect(handed).toMatchObject({ kind: "send", key: "send:1", payload: { n: 1 }, attempts: 1, lockedBy: "w1" });
			expect(handed?.lockedUntil).toEqual(at(30));
			expect(await store.jobs.get(handed!.id)).toEqual(handed);
			// Its key is live: neither a plain nor a handed-off second job is written.
			expect(await store.jobs.enqueue({ kind: "send", key: "send:1", payload: {}, runAt: T0 }, T0)).toBeNull();
			expect(
				await store.jobs.enqueueClaimed({ kind: "send", key: "send:1", payload: {}, runAt: T0 }, T0, {
					workerId: "w2",
					lockedUntil: at(30),
				}),
			).toBeNull();
			expect(await store.jobs.depth(at(1))).toEqual([
				{ kind: "send", due: 0, scheduled: 0, running: 1, oldestDueAt: null },
			]);
			expect(await store.jobs.cancelByKey("send:1", at(1))).toBe("leased");
			// No claim takes it while the lease holds; once it has run out (the worker died), one does.
			expect(await store.jobs.claim({ workerId: "w2", leaseMs: 30_000, limit: 10, now: at(29) })).toEqual([]);
			const again = await store.jobs.claim({ workerId: "w2", leaseMs: 30_000, limit: 10, now: at(31) });
			expect(again.map((j) => [j.id, j.lockedBy, j.attempts])).toEqual([[handed!.id, "w2", 2]]);
			expect(await store.jobs.complete(handed!.id, "w1")).toBe(false);
			expect(await store.jobs.complete(handed!.id, "w2")).toBe(true);
		},
	"jobs - a job enqueueClaimed is completed or retried by its holder like a claimed one": async ({ store }) => {
		const lease = { workerId: "w1", lockedUntil: at(30) };
		const done = (await store.jobs.enqueueClaimed({ kind: "a", payload: {}, runAt: T0 }, T0, lease))!;
		const failed = (await store.jobs.enqueueClaimed({ kind: "a", payload: {}, runAt: T0 }, T0, lease))!;
		expect(await store.jobs.extendLease(done.id, "w1", at(60))).toBe(true);
		expect(await store.jobs.complete(done.id, "w1")).toBe(true);
		expect(await store.jobs.retry(failed.id, "w1", { runAt: at(5), error: "boom" })).toBe(true);
		const retried = await store.jobs.claim({ workerId: "w2", leaseMs: 1000, limit: 10, now: at(5) });
		expect(retried.map((j) => [j.id, j.attempts, j.lastError])).toEqual([[failed.id, 2, "boom"]]);
	},
	"jobs - depth per kind: due, scheduled and running as of now, and the oldest due": async ({ store }) => {
		expect(await store.jobs.depth(T0)).toEqual([]);
		await store.jobs.enqueue({ kind: "send", payload: { n: 1 }, runAt: at(1) }, T0);
		await store.jobs.enqueue({ kind: "send", payload: { n: 2 }, runAt: at(3) }, T0);
		await store.jobs.enqueue({ kind: "send", payload: { n: 3 }, runAt: at(100) }, T0);
		await store.jobs.enqueue({ kind: "scan", payload: {}, runAt: at(2) }, T0);
		// The first due send is held until at(40), the scan until at(15).
		await store.jobs.claim({ workerId: "w1", leaseMs: 35_000, kinds: ["send"], limit: 1, now: at(5) });
		await store.jobs.claim({ workerId: "w1", leaseMs: 10_000, kinds: ["scan"], limit: 1, now: at(5) });
		expect(await store.jobs.depth(at(10))).toEqual([
			{ kind: "scan", due: 0, scheduled: 0, running: 1, oldestDueAt: null },
			{ kind: "send", due: 1, scheduled: 1, running: 1, oldestDueAt: at(3) },
		]);
		expect(await store.jobs.depth(at(50))).toEqual([
			{ kind: "scan", due: 1, scheduled: 0, running: 0, oldestDueAt: at(2) },
			{ kind: "send", due: 2, scheduled: 1, running: 0, oldestDueAt: at(1) },
		]);
	},
	"jobs - a claim returns the message a job of a withMessage kind names, as of the claim": async ({ store }) => {
		const full = message("msg_000001", { details: { attempt_mics: ["abc=, sha-256"] }, scheduledAt: at(5) });
		await store.messages.create(full);
		await store.messages.create(message("msg_000002"));
		const send = (messageId: string, priority: number) =>
			store.jobs.enqueue({ kind: "send", payload: { messageId }, priority, runAt: T0 }, T0);
		await send("msg_000001", 3);
		await send("msg_000404", 2);
		await store.jobs.enqueue({ kind: "other", payload: { messageId: "msg_000002" }, priority: 1, runAt: T0 }, T0);
		await send("msg_000002", 0);
		// A job still waiting keeps no message of its own: the next claim reads it as it then stands.
		await store.messages.transition("msg_000002", ["queued"], { status: "processing", attempts: 1, updatedAt: at(1) });
		const claimed = await store.jobs.claim({ ...lease, limit: 3, now: at(2), withMessage: ["send"] });
		expect(claimed.map((job) => [job.kind, job.payload.messageId, job.attempts, job.lockedBy])).toEqual([
			["send", "msg_000001", 1, "w1"],
			["send", "msg_000404", 1, "w1"],
			["other", "msg_000002", 1, "w1"],
		]);
		expect(claimed[0]!.message).toEqual(full);
		expect(claimed[1]!.message).toBeNull();
		// Not of a withMessage kind: no message, the job as a plain claim returns it.
		expect(claimed[2]).not.toHaveProperty("message");
		const [last] = await store.jobs.claim({ ...lease, kinds: ["send"], limit: 3, now: at(2), withMessage: ["send"] });
		expect(last!.message).toMatchObject({ id: "msg_000002", status: "processing", attempts: 1, updatedAt: at(1) });
		// Without withMessage, a claim returns jobs only.
		await store.jobs.retry(last!.id, "w1", { runAt: at(2), error: "again" });
		const plain = await store.jobs.claim({ ...lease, limit: 3, now: at(2) });
		expect(plain.map((job) => job.id)).toEqual([last!.id]);
		expect(plain[0]).not.toHaveProperty("message");
	},
	"schedules - one claim per period across callers": async ({ store }) => {
		const first = await Promise.all(
			Array.from({ length: 5 }, () => store.schedules.claimPeriod("scan", "2026-01-01T00")),
		);
		expect(first.filter(Boolean)).toHaveLength(1);
		expect(await store.schedules.claimPeriod("scan", "2026-01-01T00")).toBe(false);
		expect(await store.schedules.claimPeriod("scan", "2026-01-01T01")).toBe(true);
		expect(await store.schedules.claimPeriod("other", "2026-01-01T00")).toBe(true);
	},
} satisfies Record<string, ConformanceTest>;
