import type { Page, PageRequest } from "./pagination.ts";
import type { Json } from "./records.ts";

/**
 * The identifier lists of an event that the EPCIS query's MATCH_ and EQ_ families look up
 * (EPCIS 1.2 §8.2.7.1, EPCIS 2.0 §8.2.7.1): one value row per identifier.
 *
 * - `epc`: epcList, childEPCs · `parentID` · `inputEPC`: inputEPCList · `outputEPC`: outputEPCList
 * - `epcClass`: quantityList and childQuantityList classes · `inputEPCClass` · `outputEPCClass`
 * - `bizTransaction`, `source`, `destination`: with their (canonical CBV) `type`
 */
export type EpcisValueKind =
	| "epc"
	| "parentID"
	| "inputEPC"
	| "outputEPC"
	| "epcClass"
	| "inputEPCClass"
	| "outputEPCClass"
	| "bizTransaction"
	| "source"
	| "destination";

export interface EpcisEventValue {
	kind: EpcisValueKind;
	/** The type of a bizTransaction, source or destination ("" when it has none); "" otherwise. */
	type: string;
	value: string;
}

/** One event of an EPCIS document carried by a message, as indexed for queries. */
export interface EpcisEventRecord {
	tenantId: string;
	/** The `msg_…` id of the message whose payload held the document. */
	sourceMessageId: string;
	/** 0-based position of the event in its document: with the message, the event's identity. */
	eventIndex: number;
	type: string;
	/** Every EPCIS event has one; the indexer skips an event without a readable eventTime. */
	eventTime: Date;
	/** When the event entered the service (the message's creation). */
	recordTime: Date;
	action: string | null;
	/** bizStep and disposition in canonical CBV form (`normalizeCbv`). */
	bizStep: string | null;
	disposition: string | null;
	readPoint: string | null;
	bizLocation: string | null;
	transformationId: string | null;
	eventId: string | null;
	/** Distinct identifier values for MATCH_ / EQ_ lookups. */
	values: EpcisEventValue[];
	/** The event in EPCIS 2.0 JSON form, returned as stored. */
	event: { [key: string]: Json };
}

/** Any of `equals` (string equality) or of `prefixes` (starts with, compared as code points). */
export interface EpcisStringMatch {
	equals?: readonly string[];
	prefixes?: readonly string[];
}

/** Bounds on an instant; each given bound must hold. */
export interface EpcisTimeRange {
	gte?: Date;
	lt?: Date;
	lte?: Date;
}

/**
 * A conjunction of conditions on a tenant's events: every condition given must hold, and
 * within one condition any of its values may match (EPCIS SimpleEventQuery semantics: OR
 * within a parameter, AND across parameters). An empty list matches nothing.
 */
export interface EpcisEventFilter {
	types?: readonly string[];
	eventTime?: EpcisTimeRange;
	recordTime?: EpcisTimeRange;
	actions?: readonly string[];
	bizSteps?: readonly string[];
	dispositions?: readonly string[];
	/** Each entry must match the event's readPoint (EQ_readPoint and WD_readPoint together). */
	readPoint?: readonly EpcisStringMatch[];
	bizLocation?: readonly EpcisStringMatch[];
	transformationIds?: readonly string[];
	eventIds?: readonly string[];
	/** Each entry must match some value row of one of its kinds (and of its type, when given). */
	values?: readonly { kinds: readonly EpcisValueKind[]; type?: string; match: EpcisStringMatch }[];
}

export interface EpcisQueryOptions {
	/** Ties keep insertion order (in the same direction). */
	orderBy: "eventTime" | "recordTime";
	direction: "asc" | "desc";
	/** Only the first `limit` matching events in this order exist for the page and the total (eventCountLimit). */
	limit?: number;
	page: PageRequest;
}

/** A stored event as queries return it. */
export interface EpcisStoredEvent {
	sourceMessageId: string;
	eventIndex: number;
	recordTime: Date;
	event: { [key: string]: Json };
}

/** How far indexing of one message's payload got (at most one record per message). */
export interface EpcisDocumentRecord {
	tenantId: string;
	messageId: string;
	/** `indexing` while events are written; `skipped` when the payload is not an EPCIS document. */
	status: "indexing" | "indexed" | "failed" | "skipped";
	version: "1.2" | "2.0" | null;
	/** Events indexed. */
	eventCount: number;
	/** Events left out: no readable eventTime. */
	skippedEvents: number;
	errorCode: string | null;
	errorMessage: string | null;
	createdAt: Date;
	updatedAt: Date;
}

/**
 * The tenant-scoped EPCIS event repository behind `POST /v1/epcis/query`, filled by the
 * indexing job from message payloads. Semantics are plain SQL (equality, ranges, prefix
 * ranges, EXISTS on the value rows), so every adapter can index the same way.
 */
export interface EpcisStore {
	/**
	 * Stores events; one whose (tenant, sourceMessageId, eventIndex) is already stored is left
	 * as it is, so a job re-run after a crash adds only what is missing. Resolves to how many
	 * were inserted.
	 */
	insertEvents(events: readonly EpcisEventRecord[]): Promise<number>;
	/** The highest eventIndex stored for a message; -1 when none. */
	lastEventIndex(tenantId: string, sourceMessageId: string): Promise<number>;
	/** Removes a message's events (and their values); resolves to how many events. */
	deleteEvents(tenantId: string, sourceMessageId: string): Promise<number>;
	/** A page of the tenant's matching events, and their total (capped by `limit`). */
	queryEvents(tenantId: string, filter: EpcisEventFilter, options: EpcisQueryOptions): Promise<Page<EpcisStoredEvent>>;
	/** Creates or replaces the record of a message's indexing. */
	putDocument(document: EpcisDocumentRecord): Promise<void>;
	getDocument(tenantId: string, messageId: string): Promise<EpcisDocumentRecord | null>;
}
