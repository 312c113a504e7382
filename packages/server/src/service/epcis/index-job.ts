import { detectEpcisDocument, isAs2Error } from "@as2kit/core";
import type {
	As2Store,
	BlobStore,
	EpcisDocumentRecord,
	EpcisEventRecord,
	MessageRecord,
	NewJob,
} from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import { type JobHandler, RetryJob } from "../jobs/worker.ts";

export const EPCIS_INDEX_JOB = "epcis.index";

/** After every message send: indexing waits for the pipeline, never the other way round. */
const PRIORITY = -10;
/** Events per insert: each batch is one short transaction, so other writers wait milliseconds at most. */
const BATCH = 250;
/** Indexing jobs running at once in one process; the worker's other slots stay free for messages. */
const MAX_RUNNING = 2;
/**
 * Claims (a claim while both slots are busy counts too) before a failure that is not the
 * document's (storage, blob reads) is recorded and the job given up.
 */
const MAX_ATTEMPTS = 10;
/** detectEpcisDocument looks at no more than this. */
const SNIFF_BYTES = 8192;

function retryAfterMs(error: { details?: Record<string, unknown> | undefined }): number {
	const seconds = error.details?.retry_after_seconds;
	return 1000 * (typeof seconds === "number" ? seconds : 1);
}

/** Whether a message's content type may carry an EPCIS document: the job then sniffs the payload. */
export function mayCarryEpcis(contentType: string): boolean {
	const type = contentType.split(";")[0]!.trim().toLowerCase();
	return type === "application/xml" || type === "text/xml";
}

/**
 * Called in the transaction that creates a message (outbound in submit, inbound in
 * process-inbound): enqueues the indexing of its EPCIS events when its payload may be an
 * EPCIS document. The job runs on its own, after sends; nothing in the message pipeline
 * waits for it or reads what it writes.
 */
export async function enqueueEpcisIndex(tx: As2Store, message: MessageRecord, at: Date): Promise<void> {
	const job = epcisIndexJob(message, at);
	if (job) await tx.jobs.enqueue(job, at);
}

/** The index job of a message whose payload may carry EPCIS events; null for any other. */
export function epcisIndexJob(message: MessageRecord, at: Date): NewJob | null {
	if (!message.payloadKey || !mayCarryEpcis(message.contentType)) return null;
	return {
		kind: EPCIS_INDEX_JOB,
		key: `epcis:${message.id}`,
		payload: { messageId: message.id },
		priority: PRIORITY,
		runAt: at,
	};
}

/**
 * The `epcis.index` job: sniffs the payload's first KB for an EPCISDocument or
 * EPCISQueryDocument root, then streams its events from the blob into the store in small
 * batches, read by the EPCIS engine (on Node, off the event loop: node/epcis-thread-pool.ts).
 * Idempotent: events already stored (a run cut short by a crash) are skipped, and the store
 * ignores repeats. A document that turns out malformed (or over the engine's budget) keeps
 * no events and is recorded `failed` with the parse error; an engine at capacity runs the
 * job again soon; other failures retry with the worker's backoff and are recorded after
 * MAX_ATTEMPTS. The message itself is never touched.
 */
export function createEpcisIndexHandler(deps: ServiceDeps): JobHandler {
	const logger = deps.logger.child({ component: "epcis-index" });
	let running = 0;
	return async (job, { signal }) => {
		if (running >= MAX_RUNNING) throw new RetryJob(new Date(deps.now().getTime() + 1000), "indexing slots busy");
		const message = await deps.store.messages.getById(String(job.payload.messageId));
		if (!message) return;
		running++;
		try {
			await indexMessage(deps, message, signal);
		} catch (error) {
			if (error instanceof RetryJob) throw error;
			if (job.attempts < MAX_ATTEMPTS) {
				logger.warn({ err: error, messageId: message.id, attempt: job.attempts }, "EPCIS indexing failed; will retry");
				throw error;
			}
			logger.error({ err: error, messageId: message.id }, "EPCIS indexing failed; giving up");
			await record(deps, message, {
				status: "failed",
				errorCode: isAs2Error(error) ? error.code : "INTERNAL_ERROR",
				errorMessage: String((error as Error)?.message ?? error).slice(0, 500),
			});
		} finally {
			running--;
		}
	};
}

async function indexMessage(deps: ServiceDeps, message: MessageRecord, signal: AbortSignal): Promise<void> {
	const { store, blobs } = deps;
	const previous = await store.epcis.getDocument(message.tenantId, message.id);
	if (previous && previous.status !== "indexing") return;
	const prefix = message.payloadKey ? await readPrefix(blobs, message.payloadKey) : null;
	if (!prefix) {
		await record(deps, message, { status: "failed", errorCode: "PAYLOAD_MISSING", errorMessage: "no payload blob" });
		return;
	}
	const detected = detectEpcisDocument(prefix);
	if (!detected) {
		await record(deps, message, { status: "skipped" });
		return;
	}
	await record(deps, message, { status: "indexing", version: detected.version });
	const stored = await store.epcis.lastEventIndex(message.tenantId, message.id);
	const body = await blobs.get(message.payloadKey!);
	if (!body) throw new Error(`payload blob ${message.payloadKey} vanished`);
	let indexed = 0;
	let skipped = 0;
	let batch: EpcisEventRecord[] = [];
	const rows = deps.epcisEngine.readEventRecords(body, {
		tenantId: message.tenantId,
		sourceMessageId: message.id,
		recordTime: message.createdAt,
	});
	try {
		for await (const row of rows) {
			// A stopping worker: the job runs again later and skips what is stored.
			if (signal.aborted) throw new RetryJob(deps.now(), "worker stopping");
			if (!row) skipped++;
			else if (row.eventIndex <= stored) indexed++;
			else {
				batch.push(row);
				if (batch.length >= BATCH) {
					indexed += batch.length;
					await store.epcis.insertEvents(batch);
					batch = [];
				}
			}
		}
		indexed += batch.length;
		if (batch.length) await store.epcis.insertEvents(batch);
	} catch (error) {
		// The EPCIS engine at capacity, or its thread stopped: the job runs again later and adds what is missing.
		if (isAs2Error(error) && error.code === "SERVICE_UNAVAILABLE") {
			await body.cancel().catch(() => {});
			throw new RetryJob(new Date(deps.now().getTime() + retryAfterMs(error)), "EPCIS engine busy");
		}
		if (!isAs2Error(error) || error.code !== "EPCIS_PARSE_ERROR") throw error;
		// A malformed document keeps none of its events: all or nothing.
		await store.epcis.deleteEvents(message.tenantId, message.id);
		deps.logger.warn({ err: error, messageId: message.id }, "EPCIS document not indexed: it does not parse");
		await record(deps, message, {
			status: "failed",
			version: detected.version,
			skippedEvents: skipped,
			errorCode: error.code,
			errorMessage: error.message.slice(0, 500),
		});
		return;
	}
	await record(deps, message, {
		status: "indexed",
		version: detected.version,
		eventCount: indexed,
		skippedEvents: skipped,
	});
}

async function record(
	deps: ServiceDeps,
	message: MessageRecord,
	outcome: Partial<EpcisDocumentRecord> & Pick<EpcisDocumentRecord, "status">,
): Promise<void> {
	const at = deps.now();
	await deps.store.epcis.putDocument({
		tenantId: message.tenantId,
		messageId: message.id,
		version: null,
		eventCount: 0,
		skippedEvents: 0,
		errorCode: null,
		errorMessage: null,
		createdAt: at,
		updatedAt: at,
		...outcome,
	});
}

/** The blob's first bytes (up to SNIFF_BYTES); null when there is no blob. */
async function readPrefix(blobs: BlobStore, key: string): Promise<Uint8Array | null> {
	const stream = await blobs.get(key);
	if (!stream) return null;
	const reader = stream.getReader();
	const chunks: Uint8Array[] = [];
	let size = 0;
	try {
		while (size < SNIFF_BYTES) {
			const { value, done } = await reader.read();
			if (done) break;
			chunks.push(value);
			size += value.byteLength;
		}
	} finally {
		await reader.cancel().catch(() => {});
	}
	const out = new Uint8Array(size);
	let offset = 0;
	for (const chunk of chunks) {
		out.set(chunk, offset);
		offset += chunk.byteLength;
	}
	return out.subarray(0, SNIFF_BYTES);
}
