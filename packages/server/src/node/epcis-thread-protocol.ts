/**
 * The messages between the EPCIS thread pool (epcis-thread-pool.ts, on the main thread) and
 * its threads (epcis-thread-tasks.ts). A task streams its document in: at most
 * INPUT_WINDOW chunks of at most CHUNK_BYTES are in flight, each `pull` asks for one more.
 * Event records stream out in batches, at most OUTPUT_WINDOW unacknowledged. Every task ends
 * with exactly one of `result`, `finished` or `failed`.
 */
import type { EpcisRule, EpcisValidationResult } from "@as2kit/core";
import type { EpcisEventRecord } from "@as2kit/core/store";
import type { EventRecordContext } from "../service/epcis/epcis-engine.ts";

export const CHUNK_BYTES = 64 * 1024;
export const INPUT_WINDOW = 4;
export const OUTPUT_WINDOW = 2;
/** Records per batch; one large event is a batch of its own. */
export const BATCH_RECORDS = 100;

/**
 * The time a task may keep a thread busy: `baseMs` plus `msPerMb` per MB of the document
 * read so far. Validation is linear (about 2–4 MB/s on a 2-core host), so an honest document
 * of any size fits; a document that needs more is refused rather than holding a thread.
 */
export interface EpcisBudget {
	baseMs: number;
	msPerMb: number;
}

export function budgetMs(budget: EpcisBudget, bytesRead: number): number {
	return budget.baseMs + (budget.msPerMb * bytesRead) / (1024 * 1024);
}

export type TaskStart =
	| { type: "validate"; id: number; budget: EpcisBudget; rules: EpcisRule[]; now: number }
	| { type: "records"; id: number; budget: EpcisBudget; context: EventRecordContext };

export type ToThread =
	| TaskStart
	| { type: "chunk"; id: number; bytes: Uint8Array }
	| { type: "end"; id: number }
	/** The input failed or the caller lost interest: the task ends with `failed`. */
	| { type: "abort"; id: number }
	/** One output batch consumed. */
	| { type: "credit"; id: number };

/** Why a task failed, as plain data (errors do not cross threads with their class). */
export type TaskFailure =
	/** Over its budget: the document is refused. */
	| { kind: "budget"; usedMs: number; budgetMs: number }
	/** An As2Error (EPCIS_PARSE_ERROR of readEpcisEvents, …) or any other error. */
	| { kind: "error"; code: string; message: string; details?: Record<string, unknown> }
	| { kind: "aborted" };

export type FromThread =
	| { type: "pull"; id: number }
	/**
	 * Records as JSON text: the main thread parses it in a third of the time structured clone
	 * takes to rebuild a deeply nested 8 MB event, and the store serializes the event anyway.
	 */
	| { type: "batch"; id: number; json: string }
	| { type: "result"; id: number; result: EpcisValidationResult }
	| { type: "finished"; id: number }
	| { type: "failed"; id: number; failure: TaskFailure };

export function recordsToJson(records: readonly (EpcisEventRecord | null)[]): string {
	return JSON.stringify(records);
}

export function recordsFromJson(json: string): (EpcisEventRecord | null)[] {
	const records = JSON.parse(json) as (EpcisEventRecord | null)[];
	for (const record of records) {
		if (!record) continue;
		record.eventTime = new Date(record.eventTime);
		record.recordTime = new Date(record.recordTime);
	}
	return records;
}

/**
 * What a thread is doing now, in shared memory, so that the pool can tell which task holds a
 * thread that has stopped answering: the task (0: none) and, for it, when its current slice
 * of work began and how much time it had used before.
 */
export class ThreadSlot {
	private readonly task: Int32Array;
	private readonly times: Float64Array;

	constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(24)) {
		this.times = new Float64Array(buffer, 0, 2);
		this.task = new Int32Array(buffer, 16, 1);
	}

	begin(id: number, usedMs: number): void {
		this.times[0] = now();
		this.times[1] = usedMs;
		Atomics.store(this.task, 0, id);
	}

	end(): void {
		Atomics.store(this.task, 0, 0);
	}

	/** The running task and the time it has used, this slice included; null when idle. */
	read(): { id: number; usedMs: number } | null {
		const id = Atomics.load(this.task, 0);
		if (id === 0) return null;
		const usedMs = this.times[1]! + (now() - this.times[0]!);
		return Atomics.load(this.task, 0) === id ? { id, usedMs } : null;
	}
}

/** Milliseconds on a clock both threads share (each thread's timeOrigin differs). */
export function now(): number {
	return performance.timeOrigin + performance.now();
}
