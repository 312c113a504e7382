import type { Worker } from "node:worker_threads";
import {
	As2Error,
	type EpcisInput,
	type EpcisRule,
	type EpcisValidationResult,
	ERROR_CODES,
	type ErrorCode,
	toChunks,
} from "@as2kit/core";
import type { EpcisEventRecord } from "@as2kit/core/store";
import {
	CHUNK_BYTES,
	type EpcisBudget,
	type FromThread,
	INPUT_WINDOW,
	recordsFromJson,
	type TaskFailure,
	type TaskStart,
	type ToThread,
} from "./epcis-thread-protocol.ts";

/** Why a document is refused (over its budget, over the thread's heap): its code and message. */
export interface Refusal {
	code: string;
	message: string;
}

type Outcome =
	| { kind: "result"; result: EpcisValidationResult }
	| { kind: "finished" }
	| { kind: "refused"; refusal: Refusal }
	| { kind: "error"; error: unknown };

type StartFields = TaskStart extends infer T ? (T extends TaskStart ? Omit<T, "id" | "budget"> : never) : never;

/**
 * One task of the pool, on the main thread: streams the document to its thread (at most
 * INPUT_WINDOW chunks ahead of what the thread has taken), collects what comes back and
 * settles once the thread has ended the task (or died) and the input is no longer read.
 */
export class PoolTask {
	bytesSent = 0;
	private worker: Worker | null = null;
	private release: () => void = () => {};
	private inFlight = 0;
	private outcome: Outcome | null = null;
	private inputError: unknown = null;
	private readonly batches: (EpcisEventRecord | null)[][] = [];
	private wakePump: (() => void) | null = null;
	private wakeReader: (() => void) | null = null;
	private pumped: Promise<void> = Promise.resolve();
	private readonly settled: Promise<void>;
	private markSettled: () => void = () => {};

	constructor(
		readonly id: number,
		private readonly document: EpcisInput,
		readonly budget: EpcisBudget,
		private readonly start: StartFields,
	) {
		this.settled = new Promise((resolve) => (this.markSettled = resolve));
	}

	startOn(worker: Worker, release: () => void): void {
		this.worker = worker;
		this.release = release;
		this.post({ ...this.start, id: this.id, budget: this.budget } as TaskStart);
		this.pumped = this.pump();
	}

	receive(message: FromThread): void {
		switch (message.type) {
			case "pull":
				this.inFlight--;
				this.wakePump?.();
				return;
			case "batch":
				this.batches.push(recordsFromJson(message.json));
				this.wakeReader?.();
				return;
			case "result":
				this.settle({ kind: "result", result: message.result });
				return;
			case "finished":
				this.settle({ kind: "finished" });
				return;
			case "failed":
				this.settle(fromFailure(message.failure));
				return;
		}
	}

	/** Its thread ended because of this task. */
	refuse(refusal: Refusal): void {
		this.settle({ kind: "refused", refusal });
	}

	/** Its thread ended for another reason, or the pool closed. */
	fail(error: unknown): void {
		this.settle({ kind: "error", error });
	}

	/** The verdict; a document refused is `valid: false` with a `parse` issue, as a hostile one is. */
	async result(rules: readonly EpcisRule[]): Promise<EpcisValidationResult> {
		const outcome = await this.finish();
		if (outcome.kind === "result") return outcome.result;
		if (outcome.kind === "refused") return refusedResult(rules, outcome.refusal);
		throw outcome.kind === "error" ? outcome.error : new Error("EPCIS thread answered records to a validation");
	}

	async *records(): AsyncGenerator<EpcisEventRecord | null> {
		try {
			for (;;) {
				while (this.batches.length === 0 && !this.outcome) await new Promise<void>((r) => (this.wakeReader = r));
				const batch = this.batches.shift();
				if (batch) {
					yield* batch;
					if (!this.outcome) this.post({ type: "credit", id: this.id });
					continue;
				}
				const outcome = await this.finish();
				if (outcome.kind === "finished") return;
				if (outcome.kind === "refused") {
					throw new As2Error("EPCIS_PARSE_ERROR", outcome.refusal.message, {
						details: { code: outcome.refusal.code },
					});
				}
				throw outcome.kind === "error" ? outcome.error : new Error("EPCIS thread answered a verdict to a read");
			}
		} finally {
			// The reader stopped early (a stopping worker, a storage error): the thread stops too.
			if (!this.outcome) this.post({ type: "abort", id: this.id });
		}
	}

	private async finish(): Promise<Outcome> {
		await this.settled;
		// An answer lets the caller read on (a form's next part): the input must be left first.
		// A failure is answered at once, without waiting for a stalled client's next chunk.
		if (this.outcome!.kind !== "error") await this.pumped;
		// The input failed (the client went away, the plan's size was passed): that is the answer.
		return this.inputError ? { kind: "error", error: this.inputError } : this.outcome!;
	}

	private settle(outcome: Outcome): void {
		if (this.outcome) return;
		this.outcome = outcome;
		this.release();
		this.markSettled();
		this.wakePump?.();
		this.wakeReader?.();
	}

	private async pump(): Promise<void> {
		try {
			for await (const piece of ownedPieces(this.document)) {
				while (this.inFlight >= INPUT_WINDOW && !this.outcome) {
					await new Promise<void>((resolve) => (this.wakePump = resolve));
				}
				if (this.outcome) return;
				this.inFlight++;
				this.bytesSent += piece.byteLength;
				this.post({ type: "chunk", id: this.id, bytes: piece }, [piece.buffer as ArrayBuffer]);
			}
			this.post({ type: "end", id: this.id });
		} catch (error) {
			if (this.outcome) return;
			this.inputError = error;
			this.post({ type: "abort", id: this.id });
		}
	}

	private post(message: ToThread, transfer: ArrayBuffer[] = []): void {
		if (!this.outcome) this.worker?.postMessage(message, transfer);
	}
}

/**
 * The document in pieces of at most CHUNK_BYTES, each a copy with a buffer of its own: it is
 * transferred to the thread, and a view would carry (and detach) the whole buffer under it.
 */
async function* ownedPieces(document: EpcisInput): AsyncGenerator<Uint8Array> {
	const chunks =
		typeof document === "string"
			? [Buffer.from(document, "utf8")]
			: document instanceof Uint8Array
				? [document]
				: toChunks(document);
	for await (const chunk of chunks) {
		for (let at = 0; at < chunk.byteLength; at += CHUNK_BYTES) {
			yield new Uint8Array(chunk.subarray(at, at + CHUNK_BYTES));
		}
	}
}

/** The refusal of a task that kept its thread busy past its budget. */
export function overBudget(usedMs: number, allowedMs: number): Refusal {
	return {
		code: "EPCIS_BUDGET_EXCEEDED",
		message: `validating the document took more than its time budget (${Math.round(usedMs)} ms of ${Math.round(allowedMs)} ms allowed: AS2_EPCIS_BUDGET_SECONDS plus AS2_EPCIS_BUDGET_SECONDS_PER_MB per MB read)`,
	};
}

function fromFailure(failure: TaskFailure): Outcome {
	if (failure.kind === "budget") return { kind: "refused", refusal: overBudget(failure.usedMs, failure.budgetMs) };
	if (failure.kind === "aborted") return { kind: "error", error: new Error("aborted") };
	const code = (failure.code in ERROR_CODES ? failure.code : "INTERNAL_ERROR") as ErrorCode;
	return {
		kind: "error",
		error: new As2Error(code, failure.message, failure.details ? { details: failure.details } : {}),
	};
}

function refusedResult(rules: readonly EpcisRule[], refusal: Refusal): EpcisValidationResult {
	return {
		valid: false,
		version: null,
		results: Object.fromEntries(rules.map((rule) => [rule, "failed"])),
		errors: [{ rule: "parse", code: refusal.code, message: refusal.message }],
		warnings: [],
		eventCount: 0,
	};
}
