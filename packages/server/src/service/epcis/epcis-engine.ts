import {
	type EpcisEvent,
	type EpcisInput,
	type EpcisRule,
	type EpcisValidationResult,
	readEpcisEvents,
	validateEpcis,
} from "@as2kit/core";
import type { EpcisEventRecord } from "@as2kit/core/store";
import { toEventRecord } from "./event-record.ts";
import { paced } from "./paced-input.ts";

/** Where the events of a document come from, for their store records. */
export interface EventRecordContext {
	tenantId: string;
	sourceMessageId: string;
	recordTime: Date;
}

/**
 * Where EPCIS documents are parsed and validated: `POST /v1/epcis/validate` and the
 * `epcis.index` job. {@link createInThreadEpcisEngine} runs the work on the calling thread
 * (any runtime); the Node entry runs it on a bounded pool of worker threads
 * (node/epcis-thread-pool.ts), because one event may be 8 MB (`maxEventLength`), which the
 * validator reads in one synchronous step of seconds: on the event loop that would stall
 * every request and job of the process (issue #16, defect 2).
 *
 * Over capacity, both reject with As2Error SERVICE_UNAVAILABLE (`details.retry_after_seconds`).
 */
export interface EpcisEngine {
	/** validateEpcis on a streamed document; a validation may wait its turn in a bounded queue. */
	validate(document: EpcisInput, options: { rules: readonly EpcisRule[]; now: Date }): Promise<EpcisValidationResult>;
	/**
	 * The events of a document as the store indexes them (`toEventRecord`, in document order,
	 * null for an event without a readable eventTime). For background work: over capacity it
	 * fails at once rather than waiting, and the job runs again later. Throws As2Error
	 * EPCIS_PARSE_ERROR for a document that does not parse (or costs more than its budget).
	 */
	readEventRecords(document: EpcisInput, context: EventRecordContext): AsyncIterable<EpcisEventRecord | null>;
	/** Stops the engine's threads, if any; work still running fails. */
	close(): Promise<void>;
}

/** `toEventRecord` over a stream of events, numbering them from 0. */
export async function* toEventRecords(
	events: AsyncIterable<EpcisEvent>,
	context: EventRecordContext,
): AsyncGenerator<EpcisEventRecord | null> {
	let eventIndex = 0;
	for await (const event of events) yield toEventRecord(event, { ...context, eventIndex: eventIndex++ });
}

/**
 * The engine on the calling thread, for any runtime: input paced in 64 KB pieces
 * (paced-input.ts), so a long document lets other work run between pieces; a single large
 * event still holds the thread while it is read. Unbounded: callers bound their own work.
 *
 * @example
 * const service = createService({ store, blobs, config, epcisEngine: createInThreadEpcisEngine() });
 */
export function createInThreadEpcisEngine(): EpcisEngine {
	return {
		validate: (document, options) => validateEpcis(paced(document), options),
		readEventRecords: (document, context) => toEventRecords(readEpcisEvents(paced(document)), context),
		close: async () => {},
	};
}
