import type { EpcisIssue, EpcisValidationResult } from "@as2kit/core";
import type { EpcisStoredEvent, Json } from "@as2kit/core/store";
import * as v from "valibot";
import { formatInstant } from "./instant.ts";
import { idSchema, instantSchema } from "./schema-types.ts";

const ruleSchema = v.picklist(["schema_compliance", "business_rules", "dscsa_compliance"]);

export const epcisIssueSchema = v.object({
	rule: v.pipe(
		v.picklist(["schema_compliance", "business_rules", "dscsa_compliance", "parse"]),
		v.description(
			"the rule set that found it; `parse` for a document that is not well-formed, hostile or over a limit",
		),
	),
	code: v.pipe(
		v.string(),
		v.description("stable code, e.g. XML_SYNTAX, SCHEMA_UNEXPECTED_ELEMENT, BR_INVALID_CBV_VALUE"),
	),
	message: v.string(),
	event_index: v.pipe(v.nullable(v.number()), v.description("0-based position of the event in the document")),
	path: v.pipe(
		v.nullable(v.string()),
		v.description("element path, e.g. /EPCISDocument/EPCISBody/EventList/ObjectEvent[2]/action"),
	),
	line: v.pipe(v.nullable(v.number()), v.description("1-based")),
	column: v.pipe(v.nullable(v.number()), v.description("1-based")),
});

export const epcisValidationSchema = v.object({
	valid: v.pipe(v.boolean(), v.description("the document parses and passed every requested rule")),
	validation_results: v.pipe(
		v.record(ruleSchema, v.picklist(["passed", "failed"])),
		v.description("one entry per requested rule"),
	),
	warnings: v.array(epcisIssueSchema),
	errors: v.array(epcisIssueSchema),
	epcis_version: v.pipe(v.nullable(v.picklist(["1.2", "2.0"])), v.description("null when the root is not EPCIS")),
	event_count: v.number(),
});

function issueView(issue: EpcisIssue): v.InferOutput<typeof epcisIssueSchema> {
	return {
		rule: issue.rule,
		code: issue.code,
		message: issue.message,
		event_index: issue.eventIndex ?? null,
		path: issue.path ?? null,
		line: issue.line ?? null,
		column: issue.column ?? null,
	};
}

/** `POST /v1/epcis/validate`: the top-level object of the spec (decisions.md: no data envelope). */
export function epcisValidationView(result: EpcisValidationResult): v.InferOutput<typeof epcisValidationSchema> {
	return {
		valid: result.valid,
		validation_results: result.results,
		warnings: result.warnings.map(issueView),
		errors: result.errors.map(issueView),
		epcis_version: result.version,
		event_count: result.eventCount,
	};
}

export const epcisEventSchema = v.pipe(
	v.looseObject({
		type: v.picklist([
			"ObjectEvent",
			"AggregationEvent",
			"TransactionEvent",
			"TransformationEvent",
			"AssociationEvent",
		]),
		eventTime: v.string(),
		eventTimeZoneOffset: v.optional(v.string()),
		recordTime: v.pipe(instantSchema, v.description("when the event entered the service: its message's creation")),
		eventID: v.optional(v.string()),
		action: v.optional(v.picklist(["ADD", "OBSERVE", "DELETE"])),
		bizStep: v.optional(v.pipe(v.string(), v.description("CBV values as bare words (shipping); custom URIs as given"))),
		disposition: v.optional(v.string()),
		readPoint: v.optional(v.object({ id: v.string() })),
		bizLocation: v.optional(v.object({ id: v.string() })),
		epcList: v.optional(v.array(v.string())),
		parentID: v.optional(v.string()),
		childEPCs: v.optional(v.array(v.string())),
		inputEPCList: v.optional(v.array(v.string())),
		outputEPCList: v.optional(v.array(v.string())),
		quantityList: v.optional(v.array(v.record(v.string(), v.unknown()))),
		bizTransactionList: v.optional(v.array(v.object({ type: v.optional(v.string()), bizTransaction: v.string() }))),
		sourceList: v.optional(v.array(v.object({ type: v.string(), source: v.string() }))),
		destinationList: v.optional(v.array(v.object({ type: v.string(), destination: v.string() }))),
		source_message_id: v.pipe(idSchema("msg_"), v.description("the message whose payload carried the event")),
	}),
	v.description(
		"An event in EPCIS 2.0 JSON form (EPCIS 1.2 documents too), extension elements under their prefix:name, plus source_message_id",
	),
);

/** A stored event as `POST /v1/epcis/query` answers it (decisions.md). */
export function epcisEventView(stored: EpcisStoredEvent): { [key: string]: Json } {
	return { ...stored.event, recordTime: formatInstant(stored.recordTime), source_message_id: stored.sourceMessageId };
}
