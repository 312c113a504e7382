import { setImmediate } from "node:timers/promises";
import type { MessagePort } from "node:worker_threads";
import { isAs2Error, readEpcisEvents, validateEpcis } from "@as2kit/core";
import type { EpcisEventRecord } from "@as2kit/core/store";
import { toEventRecords } from "../service/epcis/epcis-engine.ts";
import {
	BATCH_RECORDS,
	budgetMs,
	CHUNK_BYTES,
	type FromThread,
	now,
	OUTPUT_WINDOW,
	recordsToJson,
	type TaskFailure,
	type TaskStart,
	type ThreadSlot,
	type ToThread,
} from "./epcis-thread-protocol.ts";

/** A batch of records is sent early once this much of the document has gone into it. */
const BATCH_INPUT_BYTES = 16 * CHUNK_BYTES;

/**
 * The thread side of the pool (epcis-thread-protocol.ts): runs the tasks the pool sends,
 * several at once, taking turns at each chunk of input. The time each task keeps the
 * thread busy is summed between the moments it waits (for input, for the pool to take its
 * records) and checked against its budget whenever it asks for more input; the slot tells
 * the pool which task runs, so that a single step past the budget is cut short from outside.
 */
export function serveEpcisTasks(port: MessagePort, slot: ThreadSlot): void {
	const tasks = new Map<number, ThreadTask>();
	const post = (message: FromThread) => port.postMessage(message);
	port.on("message", (message: ToThread) => {
		if (message.type === "validate" || message.type === "records") {
			const task = new ThreadTask(message, slot, post);
			tasks.set(message.id, task);
			void task.run().finally(() => tasks.delete(message.id));
			return;
		}
		tasks.get(message.id)?.receive(message);
	});
}

class ThreadTask {
	private readonly chunks: Uint8Array[] = [];
	private ended = false;
	private aborted = false;
	private overBudget: { usedMs: number; budgetMs: number } | null = null;
	private credits = OUTPUT_WINDOW;
	private wake: (() => void) | null = null;
	private usedMs = 0;
	private sliceStart = -1;
	private bytesRead = 0;

	constructor(
		private readonly start: TaskStart,
		private readonly slot: ThreadSlot,
		private readonly post: (message: FromThread) => void,
	) {}

	receive(message: ToThread): void {
		if (message.type === "chunk") this.chunks.push(message.bytes);
		else if (message.type === "end") this.ended = true;
		else if (message.type === "abort") this.aborted = true;
		else if (message.type === "credit") this.credits++;
		this.wake?.();
	}

	async run(): Promise<void> {
		const { id } = this.start;
		this.resume();
		try {
			if (this.start.type === "validate") {
				const result = await validateEpcis(this.input(), {
					rules: this.start.rules,
					now: new Date(this.start.now),
				});
				this.pause();
				this.post({ type: "result", id, result });
			} else {
				await this.readRecords(this.start.context);
				this.pause();
				this.post({ type: "finished", id });
			}
		} catch (error) {
			this.pause();
			this.post({ type: "failed", id, failure: this.failure(error) });
		}
	}

	private async readRecords(context: Extract<TaskStart, { type: "records" }>["context"]): Promise<void> {
		let batch: (EpcisEventRecord | null)[] = [];
		let batchStart = 0;
		for await (const record of toEventRecords(readEpcisEvents(this.input()), context)) {
			batch.push(record);
			if (batch.length >= BATCH_RECORDS || this.bytesRead - batchStart >= BATCH_INPUT_BYTES) {
				await this.send(batch);
				batch = [];
				batchStart = this.bytesRead;
			}
		}
		if (batch.length > 0) await this.send(batch);
	}

	/** The document as the pool streams it in; the task's time runs only while it has a chunk. */
	private async *input(): AsyncGenerator<Uint8Array> {
		for (;;) {
			this.pause();
			this.checkBudget();
			// A turn of the event loop per chunk: other tasks, and the pool's messages, get theirs.
			await setImmediate();
			await this.until(() => this.chunks.length > 0 || this.ended);
			const chunk = this.chunks.shift();
			this.resume();
			if (!chunk) return;
			this.post({ type: "pull", id: this.start.id });
			this.bytesRead += chunk.byteLength;
			yield chunk;
		}
	}

	private async send(records: (EpcisEventRecord | null)[]): Promise<void> {
		this.pause();
		await this.until(() => this.credits > 0);
		this.credits--;
		this.resume();
		this.post({ type: "batch", id: this.start.id, json: recordsToJson(records) });
	}

	/** Waits, not counted as the task's time, until `ready` holds; throws once the task is aborted. */
	private async until(ready: () => boolean): Promise<void> {
		while (!this.aborted && !ready()) await new Promise<void>((resolve) => (this.wake = resolve));
		this.wake = null;
		if (this.aborted) throw new Error("aborted by the pool");
	}

	private resume(): void {
		this.sliceStart = now();
		this.slot.begin(this.start.id, this.usedMs);
	}

	private pause(): void {
		if (this.sliceStart < 0) return;
		this.usedMs += now() - this.sliceStart;
		this.sliceStart = -1;
		this.slot.end();
	}

	private checkBudget(): void {
		const allowed = budgetMs(this.start.budget, this.bytesRead);
		if (this.usedMs <= allowed) return;
		this.overBudget = { usedMs: this.usedMs, budgetMs: allowed };
		throw new Error("over budget");
	}

	/** The error as data: the validator and reader wrap what the input throws, so the flags say why. */
	private failure(error: unknown): TaskFailure {
		if (this.aborted) return { kind: "aborted" };
		if (this.overBudget) return { kind: "budget", ...this.overBudget };
		if (isAs2Error(error)) {
			return {
				kind: "error",
				code: error.code,
				message: error.message,
				...(error.details ? { details: error.details } : {}),
			};
		}
		return { kind: "error", code: "INTERNAL_ERROR", message: error instanceof Error ? error.message : String(error) };
	}
}
