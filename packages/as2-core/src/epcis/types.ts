/** The validation rule sets of `POST /v1/epcis/validate` (interface spec, EPCIS). */
export type EpcisRule = "schema_compliance" | "business_rules" | "dscsa_compliance";

export const EPCIS_RULES: readonly EpcisRule[] = ["schema_compliance", "business_rules", "dscsa_compliance"];

export type EpcisVersion = "1.2" | "2.0";

export type EpcisRootName = "EPCISDocument" | "EPCISQueryDocument";

/**
 * One finding. `rule` is "parse" for a document that is not well-formed or breaks a limit;
 * `path` is an element path (`/EPCISDocument/EPCISBody/EventList/ObjectEvent[2]/action`);
 * `line`/`column` are 1-based positions of the element's start tag in the input.
 */
export interface EpcisIssue {
	rule: EpcisRule | "parse";
	code: string;
	message: string;
	eventIndex?: number;
	path?: string;
	line?: number;
	column?: number;
}

export interface EpcisValidationResult {
	valid: boolean;
	version: EpcisVersion | null;
	results: Partial<Record<EpcisRule, "passed" | "failed">>;
	errors: EpcisIssue[];
	warnings: EpcisIssue[];
	eventCount: number;
}

/** Caps that keep hostile input in bounded time and memory; each breach is a parse error. */
export interface EpcisLimits {
	/** Deepest element nesting. */
	maxDepth: number;
	/** Attributes (namespace declarations included) on one element. */
	maxAttributes: number;
	/** Characters in one attribute value. */
	maxAttributeLength: number;
	/** Characters in one text node, comment, CDATA section or processing instruction. */
	maxTextLength: number;
	/** Characters of one event (or of the header): the unit parsed as a whole. */
	maxEventLength: number;
	/** Events in one document. */
	maxEvents: number;
	/** Errors collected before validation stops early (the result says so). */
	maxErrors: number;
}

export type EpcisInput = string | Uint8Array | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export interface ValidateEpcisOptions {
	/** Default: all three. */
	rules?: readonly string[];
	/** The clock for "eventTime not in the future"; default: the time of the call. */
	now?: Date;
	limits?: Partial<EpcisLimits>;
}

export interface ReadEpcisEventsOptions {
	limits?: Partial<EpcisLimits>;
}

/** A quantity element in EPCIS 2.0 JSON-LD form. */
export interface EpcisQuantityElement {
	epcClass: string;
	quantity?: number;
	uom?: string;
}

/**
 * An event normalized to the EPCIS 2.0 JSON-LD shape, whatever the XML version. Vocabulary
 * values (bizStep, disposition, bizTransaction/source/destination types) are in the canonical
 * form of {@link normalizeCbv}. Extension elements appear under their `prefix:local` names as
 * nested objects (`{ "example:temp": "21" }`), with `@context`-free keys.
 */
export interface EpcisEvent {
	type: "ObjectEvent" | "AggregationEvent" | "TransformationEvent" | "TransactionEvent" | "AssociationEvent";
	eventTime?: string;
	eventTimeZoneOffset?: string;
	recordTime?: string;
	eventID?: string;
	certificationInfo?: string;
	errorDeclaration?: { declarationTime?: string; reason?: string; correctiveEventIDs?: string[] } & Record<
		string,
		unknown
	>;
	action?: string;
	bizStep?: string;
	disposition?: string;
	persistentDisposition?: { set?: string[]; unset?: string[] };
	readPoint?: { id: string };
	bizLocation?: { id: string };
	epcList?: string[];
	parentID?: string;
	childEPCs?: string[];
	inputEPCList?: string[];
	outputEPCList?: string[];
	quantityList?: EpcisQuantityElement[];
	childQuantityList?: EpcisQuantityElement[];
	inputQuantityList?: EpcisQuantityElement[];
	outputQuantityList?: EpcisQuantityElement[];
	transformationID?: string;
	bizTransactionList?: { type?: string; bizTransaction: string }[];
	sourceList?: { type: string; source: string }[];
	destinationList?: { type: string; destination: string }[];
	ilmd?: Record<string, unknown>;
	sensorElementList?: Record<string, unknown>[];
	[extension: string]: unknown;
}
