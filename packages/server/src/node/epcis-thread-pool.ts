import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { As2Error, type EpcisInput } from "@as2kit/core";
import type { EpcisEventRecord } from "@as2kit/core/store";
import { type Logger, SILENT_LOGGER } from "../service/deps.ts";
import type { EpcisEngine, EventRecordContext } from "../service/epcis/epcis-engine.ts";
import { overBudget, PoolTask, type Refusal } from "./epcis-pool-task.ts";
import { budgetMs, type EpcisBudget, type FromThread, ThreadSlot } from "./epcis-thread-protocol.ts";

export interface EpcisThreadPoolOptions {
	/** Worker threads (`AS2_EPCIS_THREADS`); default one per core but one, at least one. */
	threads?: number;
	/** Tasks a thread runs at once, taking turns per 64 KB chunk; default 2. */
	tasksPerThread?: number;
	/** Validations that may wait for a free place (`AS2_EPCIS_QUEUE`); default 8 per thread. */
	queue?: number;
	/** `AS2_EPCIS_BUDGET_SECONDS` and `AS2_EPCIS_BUDGET_SECONDS_PER_MB`; default 10 s + 2 s per MB. */
	budget?: EpcisBudget;
	/** Each thread's heap (`AS2_EPCIS_THREAD_MEMORY_MB`); a document that needs more is refused. Default 1024. */
	threadMemoryMb?: number;
	/** Retry-After of a refusal for capacity; default 2 s. */
	retryAfterSeconds?: number;
	/** How often a busy thread is held against its task's budget; default 250 ms. */
	watchdogMs?: number;
	/**
	 * A thread without work for this long ends; the next task starts one again. Default 30 s:
	 * an idle thread holds ~18 MB of resident memory (its own V8 heap), so a server that
	 * validates nothing pays nothing for the pool.
	 */
	idleMs?: number;
	logger?: Logger;
	/** The thread's entry module; default the built epcis-thread.js beside this module. */
	entry?: URL;
	/** Node options of the threads (default: the process's). */
	execArgv?: string[];
}

export interface EpcisThreadPool extends EpcisEngine {
	/** For tests and metrics. */
	stats(): { threads: number; running: number; queued: number; restarts: number };
}

export const DEFAULT_EPCIS_BUDGET: EpcisBudget = { baseMs: 10_000, msPerMb: 2_000 };
const RESPAWN_DELAY_MS = 1000;

interface PoolThread {
	worker: Worker;
	slot: ThreadSlot;
	tasks: Map<number, PoolTask>;
	startedAt: number;
	/** When its last task ended (or it started), while it has none. */
	idleSince: number;
	/** Why the thread is ending, when the pool ended it or saw it fail. */
	ending: { blame: number; refusal: Refusal } | { blame: 0; reason: string; idle?: true } | null;
}

/**
 * EPCIS validation and event reading on a bounded pool of worker threads, so that no
 * document holds the event loop (issue #16: one 8 MB event is seconds of synchronous work)
 * and CPU-heavy work has a bound: `threads` run at most `tasksPerThread` tasks each, up to
 * `queue` validations wait, and anything beyond is refused at once with SERVICE_UNAVAILABLE
 * and a Retry-After (event reading, background work, never waits). A document streams to
 * its thread in chunks with a small window, so the pool holds no more of it than the
 * caller's limits let in. A task over its time budget, or over the thread's heap, is refused
 * and its thread replaced; a thread that dies fails its tasks cleanly and is replaced.
 * Threads start when work comes and end after `idleMs` without any.
 */
export function createEpcisThreadPool(options: EpcisThreadPoolOptions = {}): EpcisThreadPool {
	const size = Math.max(1, options.threads ?? availableParallelism() - 1);
	const perThread = Math.max(1, options.tasksPerThread ?? 2);
	const maxQueue = Math.max(0, options.queue ?? 8 * size);
	const budget = options.budget ?? DEFAULT_EPCIS_BUDGET;
	const memoryMb = options.threadMemoryMb ?? 1024;
	const retryAfter = options.retryAfterSeconds ?? 2;
	const logger = (options.logger ?? SILENT_LOGGER).child({ component: "epcis-threads" });
	const entry = options.entry ?? new URL("./epcis-thread.js", import.meta.url);
	if (!existsSync(fileURLToPath(entry))) {
		throw new Error(`the EPCIS thread entry ${fileURLToPath(entry)} does not exist: build the server (npm run build)`);
	}
	const threads: PoolThread[] = [];
	const queue: PoolTask[] = [];
	let closed = false;
	let restarts = 0;
	let nextId = 1;
	/** After a thread died as it started, no new one before this time (no tight restart loop). */
	let spawnNotBefore = 0;
	const idleMs = options.idleMs ?? 30_000;

	const unavailable = (why: string) =>
		new As2Error("SERVICE_UNAVAILABLE", `EPCIS ${why}; retry in ${retryAfter} s`, {
			details: { retry_after_seconds: retryAfter },
		});

	function spawn(): PoolThread {
		const slot = new ThreadSlot();
		const worker = new Worker(entry, {
			workerData: { slot: slot.buffer },
			resourceLimits: { maxOldGenerationSizeMb: memoryMb },
			...(options.execArgv ? { execArgv: options.execArgv } : {}),
		});
		worker.unref();
		const now = Date.now();
		const thread: PoolThread = { worker, slot, tasks: new Map(), startedAt: now, idleSince: now, ending: null };
		threads.push(thread);
		worker.on("message", (message: FromThread) => {
			thread.tasks.get(message.id)?.receive(message);
		});
		worker.on("error", (error: Error & { code?: string }) => {
			if (thread.ending) return;
			const running = slot.read();
			if (error.code === "ERR_WORKER_OUT_OF_MEMORY" && running) {
				const refusal = {
					code: "EPCIS_MEMORY_LIMIT_EXCEEDED",
					message: `validating the document needs more than the ${memoryMb} MB of heap an EPCIS thread has (AS2_EPCIS_THREAD_MEMORY_MB)`,
				};
				thread.ending = { blame: running.id, refusal };
			} else thread.ending = { blame: 0, reason: error.message };
			logger.error({ err: error, task: running?.id }, "EPCIS thread failed; replacing it");
		});
		worker.on("exit", (code) => {
			threads.splice(threads.indexOf(thread), 1);
			const ending = thread.ending ?? { blame: 0, reason: `the thread exited with code ${code}` };
			for (const task of thread.tasks.values()) {
				if (ending.blame === task.id && "refusal" in ending) task.refuse(ending.refusal);
				else task.fail(unavailable("work was interrupted: its thread stopped"));
			}
			thread.tasks.clear();
			if (closed || (ending.blame === 0 && "idle" in ending)) return;
			restarts++;
			// A thread that dies as it starts (a broken install, a heap too small to load the
			// validator) is not replaced in a tight loop: queued work waits a moment.
			if (Date.now() - thread.startedAt < RESPAWN_DELAY_MS) {
				spawnNotBefore = Date.now() + RESPAWN_DELAY_MS;
				setTimeout(dispatch, RESPAWN_DELAY_MS).unref();
			} else dispatch();
		});
		return thread;
	}

	/** The least busy thread with a free place, or a new one while the pool has room for it. */
	function freeThread(): PoolThread | undefined {
		let best: PoolThread | undefined;
		for (const thread of threads) {
			if (thread.ending || thread.tasks.size >= perThread) continue;
			if (!best || thread.tasks.size < best.tasks.size) best = thread;
		}
		if (best && best.tasks.size === 0) return best;
		const running = threads.filter((thread) => !thread.ending).length;
		if (!closed && running < size && Date.now() >= spawnNotBefore) return spawn();
		return best;
	}

	function startOn(thread: PoolThread, task: PoolTask): void {
		thread.tasks.set(task.id, task);
		// A thread with work keeps the process alive; an idle one does not.
		thread.worker.ref();
		task.startOn(thread.worker, () => {
			thread.tasks.delete(task.id);
			if (thread.tasks.size === 0) {
				thread.worker.unref();
				thread.idleSince = Date.now();
			}
			dispatch();
		});
	}

	function dispatch(): void {
		for (let thread = freeThread(); thread && queue.length > 0; thread = freeThread()) startOn(thread, queue.shift()!);
	}

	function admit(task: PoolTask, mayWait: boolean): void {
		if (closed) throw unavailable("is shutting down");
		const thread = freeThread();
		if (thread) startOn(thread, task);
		else if (mayWait && queue.length < maxQueue) queue.push(task);
		else throw unavailable("validation is at capacity");
	}

	/**
	 * A single step of work past its task's budget cannot be interrupted from inside: end the
	 * thread. A thread idle for `idleMs` ends too.
	 */
	const watchdog = setInterval(() => {
		for (const thread of threads) {
			if (!thread.ending && thread.tasks.size === 0 && Date.now() - thread.idleSince >= idleMs) {
				thread.ending = { blame: 0, reason: "idle", idle: true };
				void thread.worker.terminate();
				continue;
			}
			const running = thread.slot.read();
			const task = running && thread.tasks.get(running.id);
			if (!running || !task || thread.ending) continue;
			const allowed = budgetMs(task.budget, task.bytesSent) + (options.watchdogMs ?? 250);
			if (running.usedMs <= allowed) continue;
			thread.ending = { blame: task.id, refusal: overBudget(running.usedMs, allowed) };
			logger.warn(
				{ task: task.id, usedMs: Math.round(running.usedMs) },
				"EPCIS task over its budget; ending its thread",
			);
			void thread.worker.terminate();
		}
	}, options.watchdogMs ?? 250);
	watchdog.unref();

	return {
		async validate(document, { rules, now }) {
			const task = new PoolTask(nextId++, document, budget, {
				type: "validate",
				rules: [...rules],
				now: now.getTime(),
			});
			admit(task, true);
			return task.result(rules);
		},

		readEventRecords(document: EpcisInput, context: EventRecordContext): AsyncIterable<EpcisEventRecord | null> {
			return {
				[Symbol.asyncIterator]: () => {
					const task = new PoolTask(nextId++, document, budget, { type: "records", context });
					admit(task, false);
					return task.records();
				},
			};
		},

		async close() {
			closed = true;
			clearInterval(watchdog);
			for (const task of queue.splice(0)) task.fail(unavailable("is shutting down"));
			await Promise.all(threads.map((thread) => thread.worker.terminate()));
		},

		stats: () => ({
			threads: threads.length,
			running: threads.reduce((n, t) => n + t.tasks.size, 0),
			queued: queue.length,
			restarts,
		}),
	};
}
