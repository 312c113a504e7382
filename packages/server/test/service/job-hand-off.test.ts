import type { ClaimOptions, JobRecord } from "@as2kit/core/store";
import { createSqliteStore } from "@as2kit/storage-sqlite";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type ServiceDeps, SILENT_LOGGER } from "../../src/service/deps.ts";
import { prepareHandOff } from "../../src/service/jobs/hand-off.ts";
import { createWorker, type Worker, type WorkerSlot } from "../../src/service/jobs/worker.ts";
import { TestClock } from "../helpers/test-app.ts";

/**
 * The hand-off of a job to the local worker (issue #20): a slot reserved before the job is
 * written leased to the worker, then run without a claim; a full worker gives no slot.
 */
const store = createSqliteStore({ url: ":memory:" });
const clock = new TestClock();
/** Every claim the workers made, with what it took. */
const claims: { options: ClaimOptions; took: JobRecord[] }[] = [];
const claim = store.jobs.claim.bind(store.jobs);
store.jobs.claim = async (options) => {
	const took = await claim(options);
	claims.push({ options, took });
	return took;
};
const workers: Worker[] = [];
/** Slots a test reserved: a failed test leaves some held, and stopping its worker waits for them. */
const slots: WorkerSlot[] = [];
afterEach(async () => {
	for (const open of gates.values()) open();
	gates.clear();
	for (const slot of slots.splice(0)) slot.release();
	await Promise.all(workers.splice(0).map((worker) => worker.stop()));
	claims.length = 0;
	const cleanup = await claim({ workerId: "cleanup", leaseMs: 1, limit: 100, now: new Date(8e15) });
	for (const job of cleanup) await store.jobs.complete(job.id, "cleanup");
});
afterAll(() => store.close());

// Bounded generously: a loaded machine runs the worker slowly.
const waitFor = async (condition: () => Promise<boolean> | boolean) => {
	for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
		if (await condition()) return;
		await new Promise((r) => setTimeout(r, 10));
	}
	throw new Error("condition not met in 30 s");
};

/** Every gate not yet opened: a failed test opens them, so that stopping its worker does not wait forever. */
const gates = new Map<number, () => void>();
/** A handler each of whose runs waits for `finish(n)`. */
function gatedHandler() {
	const started: number[] = [];
	return {
		started,
		finish: (n: number) => gates.get(n)?.(),
		handler: async (job: JobRecord) => {
			const n = job.payload.n as number;
			started.push(n);
			await new Promise<void>((resolve) => gates.set(n, resolve));
		},
	};
}

/**
 * A handler that records the turn of the event loop each job started in, and holds it until the
 * test ends (its gate); the turns are counted in the loop's check phase, one increment a turn.
 */
function turnCounter() {
	let turn = 0;
	let counting = false;
	const starts: number[] = [];
	const gated = gatedHandler();
	const tick = () => {
		turn++;
		if (counting) setImmediate(tick);
	};
	return {
		handler: (job: JobRecord) => {
			starts.push(turn);
			return gated.handler(job);
		},
		count() {
			counting = true;
			setImmediate(tick);
		},
		/** How many of the first `n` jobs started in each turn that started one, in order. */
		async startedIn(n: number) {
			try {
				await waitFor(() => starts.length >= n);
			} finally {
				counting = false;
			}
			return [...new Set(starts)].map((turn) => starts.filter((started) => started === turn).length);
		},
	};
}

/** A worker started and idle: its first poll (which finds the queue empty) is done. */
async function idleWorker(handlers: Parameters<typeof createWorker>[0]["handlers"], concurrency: number) {
	// No timed polls during a test: only a start, a wake or a freed slot with jobs waiting polls.
	const worker = createWorker({ store, now: clock.now, logger: SILENT_LOGGER, pollMs: 600_000, concurrency, handlers });
	workers.push(worker);
	const reserve = worker.reserve.bind(worker);
	worker.reserve = (kind) => {
		const slot = reserve(kind);
		if (slot) slots.push(slot);
		return slot;
	};
	worker.start();
	await waitFor(() => claims.length === 1);
	return worker;
}

/** Job `n` written leased to the slot's worker, as a submission writes the job it hands off. */
async function leasedTo(slot: WorkerSlot, n: number) {
	const lease = { workerId: slot.workerId, lockedUntil: new Date(clock.now().getTime() + slot.leaseMs) };
	return (await store.jobs.enqueueClaimed({ kind: "gated", payload: { n }, runAt: clock.now() }, clock.now(), lease))!;
}

async function handOff(slot: WorkerSlot, n: number, options: { handedOff?: unknown; before?: () => void } = {}) {
	const job = await leasedTo(slot, n);
	options.before?.();
	slot.runClaimed(job, options.handedOff);
	return job;
}

describe("job hand-off to the local worker", () => {
	it("runs a handed-off job in its slot, with no claim, and completes it", async () => {
		const gated = gatedHandler();
		const worker = await idleWorker({ gated: gated.handler }, 2);
		const slot = worker.reserve("gated")!;
		expect(slot).toMatchObject({ workerId: worker.workerId, leaseMs: 60_000 });
		const job = await handOff(slot, 1);
		await waitFor(() => gated.started.includes(1));
		gated.finish(1);
		await waitFor(async () => (await store.jobs.get(job.id)) === null);
		expect(claims).toHaveLength(1);
		expect(claims[0]?.took).toEqual([]);
	});

	it("gives the handler what was handed off with the job only while the lease set with it holds", async () => {
		const seen: unknown[] = [];
		const worker = await idleWorker(
			{
				gated: async (_job, context) => {
					seen.push(context.handedOff);
				},
			},
			2,
		);
		await handOff(worker.reserve("gated")!, 1, { handedOff: "the record" });
		await waitFor(() => seen.length === 1);
		// The job starts after its lease ran out (a stalled process): another worker may have run
		// it meanwhile, so what was handed off may be stale, and the handler must read the store.
		await handOff(worker.reserve("gated")!, 2, { handedOff: "the record", before: () => clock.advance(61) });
		await waitFor(() => seen.length === 2);
		await handOff(worker.reserve("gated")!, 3);
		await waitFor(() => seen.length === 3);
		expect(seen).toEqual(["the record", undefined, undefined]);
	});

	// Issue #20 (the POST's p99, performance.md "The POST's p99 under load"): the jobs a group
	// commit hands off in one turn each start with a CPU-bound slice (the send's signing and
	// encryption); started together, they made one long turn that the POSTs arriving meanwhile
	// waited behind.
	it("starts the jobs handed off in one turn half a turn of the event loop, with the loop's I/O between", async () => {
		const turns = turnCounter();
		const worker = await idleWorker({ gated: turns.handler }, 5);
		const handed = [];
		for (let n = 1; n <= 4; n++) {
			const slot = worker.reserve("gated")!;
			handed.push({ slot, job: await leasedTo(slot, n) });
		}
		turns.count();
		for (const { slot, job } of handed) slot.runClaimed(job, undefined);
		// Half of the four (at least one) a turn: two, then one, then the last.
		expect(await turns.startedIn(4)).toEqual([2, 1, 1]);
	});

	it("starts the jobs one claim took half a turn of the event loop, each holding its slot", async () => {
		const turns = turnCounter();
		const worker = await idleWorker({ gated: turns.handler }, 4);
		for (let n = 1; n <= 5; n++)
			await store.jobs.enqueue({ kind: "gated", payload: { n }, runAt: clock.now() }, clock.now());
		turns.count();
		worker.wake();
		expect(await turns.startedIn(4)).toEqual([2, 1, 1]);
		// The claim took four, as many as the slots; none is left for a hand-off until one ends.
		expect(claims[1]?.took).toHaveLength(4);
		expect(worker.reserve("gated")).toBeNull();
	});

	it("runs a job once when a claim takes it again while it waits or runs, its lease run out (a stalled process)", async () => {
		const gated = gatedHandler();
		const worker = await idleWorker({ gated: gated.handler }, 2);
		const job = (await store.jobs.enqueue({ kind: "gated", payload: { n: 1 }, runAt: clock.now() }, clock.now()))!;
		const claimsOf = () => claims.filter(({ took }) => took.some(({ id }) => id === job.id)).length;
		worker.wake();
		await waitFor(() => gated.started.length === 1);
		// Past the 60 s lease, with no renewal through (they run every 20 s of real time).
		clock.advance(61);
		worker.wake();
		await waitFor(() => claimsOf() === 2);
		// A second run would start within a turn or two of the claim.
		for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
		expect(gated.started).toEqual([1]);
	});

	it("gives no slot when full, counting held slots; jobs written unclaimed take the slots that free", async () => {
		const gated = gatedHandler();
		const worker = await idleWorker({ gated: gated.handler }, 3);
		const first = worker.reserve("gated")!;
		const second = worker.reserve("gated")!;
		await handOff(first, 1);
		await waitFor(() => gated.started.includes(1));
		const enqueue = async (n: number) =>
			(await store.jobs.enqueue({ kind: "gated", payload: { n }, runAt: clock.now() }, clock.now()))!;
		const waiting = [await enqueue(2), await enqueue(3)];
		worker.wake();
		// One job running and one slot held: the poll claims one of the three.
		await waitFor(() => gated.started.includes(2));
		expect(claims[1]?.options.limit).toBe(1);
		expect(claims[1]?.took.map((job) => job.id)).toEqual([waiting[0]!.id]);
		expect(worker.reserve("gated")).toBeNull();
		// The held slot is released unused: the other waiting job is claimed into it.
		second.release();
		await waitFor(() => gated.started.includes(3));
		expect(claims[2]?.took.map((job) => job.id)).toEqual([waiting[1]!.id]);
		for (const n of [1, 2, 3]) gated.finish(n);
		await waitFor(async () => (await store.jobs.list()).length === 0);
	});

	it("gives no slot while jobs written unclaimed wait, so a burst does not pass them", async () => {
		const gated = gatedHandler();
		const worker = await idleWorker({ gated: gated.handler }, 4);
		await store.jobs.enqueue({ kind: "gated", payload: { n: 1 }, runAt: clock.now() }, clock.now());
		worker.wake();
		expect(worker.reserve("gated")).toBeNull();
		await waitFor(() => gated.started.includes(1));
		// The claim took less than it asked for: nothing waits any more, slots are handed out again.
		expect(claims[1]?.took).toHaveLength(1);
		expect(claims[1]?.options.limit).toBe(4);
		const slot = worker.reserve("gated");
		expect(slot).not.toBeNull();
		slot?.release();
		expect(worker.reserve("unknown kind")).toBeNull();
	});

	it("a slot freed while a claim may have left jobs waiting polls for them at once", async () => {
		const gated = gatedHandler();
		const worker = await idleWorker({ gated: gated.handler }, 2);
		for (const n of [1, 2, 3])
			await store.jobs.enqueue({ kind: "gated", payload: { n }, runAt: clock.now() }, clock.now());
		worker.wake();
		// The claim took both jobs it asked for: one more may wait, and does.
		await waitFor(() => gated.started.length === 2);
		gated.finish(gated.started[0]!);
		await waitFor(() => gated.started.length === 3);
		for (const n of gated.started) gated.finish(n);
		await waitFor(async () => (await store.jobs.list()).length === 0);
	});

	it("stop() waits for a slot held when it began to run its job, and gives no slot after", async () => {
		let ran = false;
		const worker = await idleWorker(
			{
				gated: async () => {
					ran = true;
				},
			},
			2,
		);
		const slot = worker.reserve("gated")!;
		const stopped = worker.stop();
		expect(worker.reserve("gated")).toBeNull();
		const job = await handOff(slot, 1);
		await stopped;
		expect(ran).toBe(true);
		expect(await store.jobs.get(job.id)).toBeNull();
	});

	/** A 4-slot worker that runs "gated" jobs, and the deps of a hand-off that count its wakes. */
	async function wakeProbe() {
		const probe = { ran: false, wakes: 0, deps: undefined as unknown as ServiceDeps };
		const worker = await idleWorker(
			{
				gated: async () => {
					probe.ran = true;
				},
			},
			4,
		);
		probe.deps = {
			reserveWorker: (kind: string) => worker.reserve(kind),
			wake: () => probe.wakes++,
		} as unknown as ServiceDeps;
		return probe;
	}

	it("wakes the worker after handing off a job when the transaction wrote other jobs (an event's fan-out), else not", async () => {
		const probe = await wakeProbe();
		const { deps } = probe;
		const submit = async (withFanOut: boolean) => {
			const handOff = prepareHandOff(deps);
			await store.transaction(async (transaction) => {
				const tx = handOff.watch(transaction);
				if (withFanOut) await tx.jobs.enqueue({ kind: "fan-out", payload: {}, runAt: clock.now() }, clock.now());
				await handOff.enqueue(tx, { kind: "gated", payload: {}, runAt: clock.now() }, clock.now());
			});
			handOff.committed();
		};
		await submit(false);
		await waitFor(() => probe.ran);
		expect(probe.wakes).toBe(0);
		probe.ran = false;
		await submit(true);
		await waitFor(() => probe.ran);
		expect(probe.wakes).toBe(1);
		expect((await store.jobs.list({ kind: "fan-out" }))[0]?.lockedBy).toBeNull();
	});

	it("wakes the worker after handing off a job when the transaction's event got a fan-out job, not when it got none", async () => {
		const probe = await wakeProbe();
		const { deps } = probe;
		const at = clock.now();
		await store.webhookEndpoints.create({
			id: "wh_hand_off",
			accountId: "acc_hooked",
			tenantId: "tnt_hooked",
			url: "https://hooks.example/hand-off",
			events: ["*"],
			active: true,
			accountEvents: true,
			secretSealed: "sealed",
			failingSince: null,
			disabledReason: null,
			createdAt: at,
			updatedAt: at,
		});
		const submit = async (accountId: string) => {
			const handOff = prepareHandOff(deps);
			await store.transaction(async (transaction) => {
				const tx = handOff.watch(transaction);
				await tx.events.appendNewWithFanOut(
					{ accountId, tenantId: null, kind: "account.updated", data: {}, environment: "live", createdAt: at },
					{ kind: "fan-out", runAt: at },
				);
				await handOff.enqueue(tx, { kind: "gated", payload: {}, runAt: at }, at);
			});
			handOff.committed();
		};
		await submit("acc_plain");
		await waitFor(() => probe.ran);
		expect(probe.wakes).toBe(0);
		probe.ran = false;
		await submit("acc_hooked");
		await waitFor(() => probe.ran);
		expect(probe.wakes).toBe(1);
		expect(await store.jobs.list({ kind: "fan-out" })).toHaveLength(1);
	});
});
