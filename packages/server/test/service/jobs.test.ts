import { createSqliteStore } from "@as2kit/storage-sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { SILENT_LOGGER } from "../../src/service/deps.ts";
import { createScheduler } from "../../src/service/jobs/scheduler.ts";
import { createWorker, RetryJob } from "../../src/service/jobs/worker.ts";
import { TestClock } from "../helpers/test-app.ts";

const store = createSqliteStore({ url: ":memory:" });
const clock = new TestClock();
afterEach(async () => {
	for (const job of await store.jobs.list()) {
		await store.jobs.claim({ workerId: "cleanup", leaseMs: 1, limit: 100, now: new Date(8e15) });
		await store.jobs.complete(job.id, "cleanup");
	}
});

const waitFor = async (condition: () => Promise<boolean> | boolean) => {
	for (let i = 0; i < 200; i++) {
		if (await condition()) return;
		await new Promise((r) => setTimeout(r, 10));
	}
	throw new Error("condition not met in 2 s");
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

	it("claims a few jobs ahead when busy, keeps their leases, and gives back the unstarted ones on stop", async () => {
		const claims: number[] = [];
		const claim = store.jobs.claim.bind(store.jobs);
		const counting = {
			...store,
			jobs: {
				...store.jobs,
				claim: async (options: Parameters<typeof store.jobs.claim>[0]) => {
					const jobs = await claim(options);
					claims.push(jobs.length);
					return jobs;
				},
			},
		};
		const release: Array<() => void> = [];
		const worker = createWorker({
			store: counting,
			now: clock.now,
			logger: SILENT_LOGGER,
			pollMs: 10,
			concurrency: 2,
			prefetch: 2,
			// Renewed every 100 ms: a held job outlives its first lease.
			leaseMs: 300,
			handlers: { gate: () => new Promise<void>((resolve) => release.push(resolve)) },
		});
		for (let n = 0; n < 8; n++)
			await store.jobs.enqueue({ kind: "gate", payload: { n }, runAt: clock.now() }, clock.now());
		worker.start();
		// Two run, two more wait, claimed in one query.
		await waitFor(() => release.length === 2);
		expect(claims).toEqual([4]);
		const held = async () => (await store.jobs.list()).filter((job) => job.lockedBy === worker.workerId).length;
		expect(await held()).toBe(4);
		// Past the first lease (on the worker's clock), after a renewal: every held job is still
		// this worker's, and another worker takes only the four nobody holds.
		clock.advance(0.4);
		await new Promise((r) => setTimeout(r, 150));
		const others = await store.jobs.claim({ workerId: "other", leaseMs: 1000, limit: 10, now: clock.now() });
		expect(others.map((job) => job.payload.n)).toEqual([4, 5, 6, 7]);
		for (const job of others) await store.jobs.release(job.id, "other");
		// Two finish: the waiting two start without a claim.
		for (const finish of release.splice(0)) finish();
		await waitFor(() => release.length === 2);
		expect(claims).toEqual([4]);
		// Stopping: the running two finish, nothing waits, the other four are untouched.
		const stopped = worker.stop();
		for (const finish of release.splice(0)) finish();
		await stopped;
		const left = await store.jobs.list();
		expect(left.map((job) => [job.payload.n, job.lockedBy, job.attempts])).toEqual([
			[4, null, 0],
			[5, null, 0],
			[6, null, 0],
			[7, null, 0],
		]);
	});

	it("gives back jobs claimed ahead and not started when it stops", async () => {
		const release: Array<() => void> = [];
		const worker = createWorker({
			store,
			now: clock.now,
			logger: SILENT_LOGGER,
			pollMs: 10,
			concurrency: 1,
			prefetch: 2,
			handlers: { gate: () => new Promise<void>((resolve) => release.push(resolve)) },
		});
		for (let n = 0; n < 3; n++)
			await store.jobs.enqueue({ kind: "gate", payload: { n }, runAt: clock.now() }, clock.now());
		worker.start();
		await waitFor(async () => release.length === 1 && (await store.jobs.list()).every((job) => job.lockedBy !== null));
		const stopped = worker.stop();
		release[0]!();
		await stopped;
		// The running job finished; the two held ones are back as they were, due at once.
		expect((await store.jobs.list()).map((job) => [job.payload.n, job.lockedBy, job.attempts])).toEqual([
			[1, null, 0],
			[2, null, 0],
		]);
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
