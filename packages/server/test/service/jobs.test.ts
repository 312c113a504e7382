import { createSqliteStore } from "@as2kit/storage-sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { SILENT_LOGGER } from "../../src/service/deps.ts";
import { createScheduler } from "../../src/service/jobs/scheduler.ts";
import { createWorker, type JobContext, RetryJob } from "../../src/service/jobs/worker.ts";
import { messageRecord } from "../helpers/messages.ts";
import { TestClock } from "../helpers/test-app.ts";

const store = createSqliteStore({ url: ":memory:" });
const clock = new TestClock();
afterEach(async () => {
	for (const job of await store.jobs.list()) {
		await store.jobs.claim({ workerId: "cleanup", leaseMs: 1, limit: 100, now: new Date(8e15) });
		await store.jobs.complete(job.id, "cleanup");
	}
});

// Bounded generously: a loaded machine runs the worker slowly.
const waitFor = async (condition: () => Promise<boolean> | boolean) => {
	for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
		if (await condition()) return;
		await new Promise((r) => setTimeout(r, 10));
	}
	throw new Error("condition not met in 30 s");
};

describe("job worker", () => {
	it("runs due jobs and removes them; a RetryJob runs again when it asks", async () => {
		const seen: number[] = [];
		let attempt = 0;
		const worker = createWorker({
			store,
			now: clock.now,
			logger: SILENT_LOGGER,
			pollMs: 10,
			handlers: {
				record: async (job) => {
					seen.push(job.payload.n as number);
				},
				flaky: async () => {
					attempt++;
					if (attempt === 1) throw new RetryJob(new Date(clock.now().getTime() + 30_000), "later");
				},
			},
		});
		await store.jobs.enqueue({ kind: "record", payload: { n: 1 }, runAt: clock.now() }, clock.now());
		await store.jobs.enqueue({ kind: "flaky", payload: {}, runAt: clock.now() }, clock.now());
		worker.start();
		await waitFor(
			async () =>
				seen.length === 1 && attempt === 1 && (await store.jobs.list({ kind: "flaky" }))[0]?.lockedBy === null,
		);
		const [flaky] = await store.jobs.list({ kind: "flaky" });
		expect(flaky).toMatchObject({ lastError: "later", attempts: 1 });
		expect(await store.jobs.list({ kind: "record" })).toEqual([]);
		clock.advance(30);
		worker.wake();
		await waitFor(async () => (await store.jobs.list()).length === 0);
		expect(attempt).toBe(2);
		await worker.stop();
	});

	it("retries a handler's unexpected error with backoff, keeping the job", async () => {
		const worker = createWorker({
			store,
			now: clock.now,
			logger: SILENT_LOGGER,
			pollMs: 10,
			handlers: {
				broken: async () => {
					throw new Error("boom");
				},
			},
		});
		const job = (await store.jobs.enqueue({ kind: "broken", payload: {}, runAt: clock.now() }, clock.now()))!;
		worker.start();
		await waitFor(async () => (await store.jobs.get(job.id))?.lastError === "boom");
		await worker.stop();
		const after = await store.jobs.get(job.id);
		expect(after?.runAt.getTime()).toBe(clock.now().getTime() + 2000);
	});

	it("claims a job of a withMessage kind with its message, and hands the message over while the lease holds", async () => {
		const owner = { accountId: "acc_000001", tenantId: "tnt_000001" };
		await store.messages.create(messageRecord(owner, "msg_000001"));
		await store.messages.create(messageRecord(owner, "msg_000002"));
		const seen: { job: object; handedOff: unknown }[] = [];
		const worker = createWorker({
			store,
			now: clock.now,
			logger: SILENT_LOGGER,
			pollMs: 600_000,
			leaseMs: 60_000,
			withMessage: ["send", "unhandled"],
			handlers: {
				send: async (job, context) => {
					seen.push({ job, handedOff: context.handedOff });
					// The second job starts after its lease ran out (a stalled process): another worker may
					// have run it, so what its claim read may be stale, and the handler reads the store.
					if (seen.length === 1) clock.advance(61);
				},
				other: async (job, context) => {
					seen.push({ job, handedOff: context.handedOff });
				},
			},
		});
		const claimed: unknown[] = [];
		const claim = store.jobs.claim;
		store.jobs.claim = async (options) => {
			claimed.push(options.withMessage);
			return claim(options);
		};
		try {
			for (const [kind, messageId, priority] of [
				["send", "msg_000001", 2],
				["other", "msg_000002", 1],
				["send", "msg_000002", 0],
			] as const)
				await store.jobs.enqueue({ kind, payload: { messageId }, priority, runAt: clock.now() }, clock.now());
			worker.start();
			await waitFor(() => seen.length === 3);
			await worker.stop();
		} finally {
			store.jobs.claim = claim;
		}
		// Only the kinds it has handlers for.
		expect(claimed[0]).toEqual(["send"]);
		expect(seen.map(({ handedOff }) => (handedOff as { id?: string } | undefined)?.id)).toEqual([
			"msg_000001",
			undefined,
			undefined,
		]);
		expect(seen[0]!.handedOff).toEqual(await store.messages.getById("msg_000001"));
		// The handler gets the job as stored, without the claim's message.
		for (const { job } of seen) expect(job).not.toHaveProperty("message");
	});

	it("stop() waits for running jobs to finish", async () => {
		let finished = false;
		const worker = createWorker({
			store,
			now: clock.now,
			logger: SILENT_LOGGER,
			pollMs: 10,
			handlers: {
				slow: async () => {
					await new Promise((r) => setTimeout(r, 100));
					finished = true;
				},
			},
		});
		await store.jobs.enqueue({ kind: "slow", payload: {}, runAt: clock.now() }, clock.now());
		worker.start();
		await waitFor(async () => (await store.jobs.list())[0]?.lockedBy === worker.workerId);
		await worker.stop();
		expect(finished).toBe(true);
		expect(await store.jobs.list()).toEqual([]);
	});
});

describe("job worker leases", () => {
	/** A worker running one `held` job that waits at a gate; resolves with its context once it runs. */
	async function holdOne(leaseMs: number, over: typeof store = store) {
		let open!: () => void;
		const gate = new Promise<void>((resolve) => {
			open = resolve;
		});
		let entered!: (context: JobContext) => void;
		const running = new Promise<JobContext>((resolve) => {
			entered = resolve;
		});
		const worker = createWorker({
			store: over,
			now: clock.now,
			logger: SILENT_LOGGER,
			pollMs: 10,
			leaseMs,
			handlers: {
				held: async (_job, context) => {
					entered(context);
					await gate;
				},
			},
		});
		await store.jobs.enqueue({ kind: "held", payload: {}, runAt: clock.now() }, clock.now());
		worker.start();
		const context = await running;
		return {
			context,
			// Stopped before the job ends, so that the worker claims nothing after it.
			finish: async () => {
				const stopped = worker.stop();
				open();
				await stopped;
			},
		};
	}
	const takeOver = () =>
		store.jobs.claim({ kinds: ["held"], workerId: "another-instance", leaseMs: 60_000, limit: 1, now: clock.now() });

	it("confirms a lease it holds, and renews one that ran out while nobody took the job", async () => {
		const { context, finish } = await holdOne(60_000);
		expect(await context.confirmLease()).toBe(true);
		// The event loop stalled past the lease, but no other worker claimed the job meanwhile.
		clock.advance(61);
		expect(await context.confirmLease()).toBe(true);
		expect((await store.jobs.list({ kind: "held" }))[0]?.lockedUntil?.getTime()).toBe(clock.now().getTime() + 60_000);
		expect(context.leaseLost.aborted).toBe(false);
		await finish();
	});

	it("tells a handler that another worker took its job after the lease ran out, and leaves the job to it", async () => {
		const { context, finish } = await holdOne(60_000);
		clock.advance(61);
		expect(await takeOver()).toHaveLength(1);
		expect(await context.confirmLease()).toBe(false);
		expect(context.leaseLost.aborted).toBe(true);
		await finish();
		expect((await store.jobs.list({ kind: "held" }))[0]).toMatchObject({ lockedBy: "another-instance" });
	});

	it("aborts leaseLost when a periodic renewal finds the job taken", async () => {
		// Renewals every 100 ms of real time; the clock the lease is measured by jumps past it.
		const { context, finish } = await holdOne(300);
		clock.advance(1);
		expect(await takeOver()).toHaveLength(1);
		await new Promise<void>((resolve, reject) => {
			const bound = setTimeout(() => reject(new Error("leaseLost did not fire within 30 s")), 30_000);
			context.leaseLost.addEventListener("abort", () => {
				clearTimeout(bound);
				resolve();
			});
		});
		await finish();
	});

	it("aborts leaseLost when its lease runs out with no renewal through, and leaves the job to be claimed again", async () => {
		// The store takes renewals but never answers them (PostgreSQL starved on a loaded host):
		// from the lease's end another worker may claim the job, so the POST must stop by then,
		// not when a late renewal finally finds the job taken (the several-instances test saw
		// one Message-ID in flight from two instances at once).
		let renewals = 0;
		let claims = 0;
		const stalled = {
			...store,
			jobs: {
				...store.jobs,
				// One claim only: this worker would otherwise claim the expired job again itself.
				claim: (...args: Parameters<typeof store.jobs.claim>) =>
					claims++ === 0 ? store.jobs.claim(...args) : Promise.resolve([]),
				extendLease: () => {
					renewals++;
					return new Promise<boolean>(() => {});
				},
			},
		};
		const { context, finish } = await holdOne(300, stalled);
		clock.advance(301);
		await new Promise<void>((resolve, reject) => {
			const bound = setTimeout(() => reject(new Error("leaseLost did not fire within 10 s")), 10_000);
			context.leaseLost.addEventListener("abort", () => {
				clearTimeout(bound);
				resolve();
			});
		});
		expect(renewals).toBeGreaterThan(0);
		await finish();
		// Not completed: the work it was doing is the next claim's to finish.
		expect(await store.jobs.list({ kind: "held" })).toMatchObject([{ attempts: 1 }]);
	});
});

describe("job worker and the event loop", () => {
	it("lets timers and I/O run while it works through a burst of due jobs", async () => {
		let done = 0;
		const worker = createWorker({
			store,
			now: clock.now,
			logger: SILENT_LOGGER,
			pollMs: 10,
			handlers: {
				noop: async () => {
					done++;
				},
			},
		});
		await store.transaction(async (tx) => {
			for (let i = 0; i < 500; i++)
				await tx.jobs.enqueue({ kind: "noop", payload: {}, runAt: clock.now() }, clock.now());
		});
		worker.start();
		// Storage resolves synchronously: without a yield per claim, this timer would fire
		// only after all 500 jobs.
		const doneWhenTimerRan = await new Promise<number>((resolve) => setTimeout(() => resolve(done), 0));
		expect(doneWhenTimerRan).toBeLessThan(500);
		await waitFor(() => done === 500);
		await worker.stop();
	});
});

describe("scheduler", () => {
	it("enqueues a periodic task once per period even when several instances tick", async () => {
		const tasks = [{ name: "maintenance.test", everySeconds: 3600 }];
		const instances = [1, 2, 3].map(() => createScheduler({ store, now: clock.now, logger: SILENT_LOGGER, tasks }));
		await Promise.all(instances.map((s) => s.tick()));
		await Promise.all(instances.map((s) => s.tick()));
		expect(await store.jobs.list({ kind: "maintenance.test" })).toHaveLength(1);
		clock.advance(3600);
		await Promise.all(instances.map((s) => s.tick()));
		expect(await store.jobs.list({ kind: "maintenance.test" })).toHaveLength(2);
	});
});
