import { As2Error, EPCIS_RULES, type EpcisRule, type EpcisValidationResult } from "@as2kit/core";
import { Hono } from "hono";
import * as v from "valibot";
import { narrowValidation } from "../../service/epcis/index.ts";
import { planOf } from "../../service/plans.ts";
import { requirePermission } from "../../service/principal.ts";
import {
	epcisEventSchema,
	epcisEventView,
	epcisValidationSchema,
	epcisValidationView,
} from "../../service/views/epcis-views.ts";
import { body, mediaType, readLimitedBody } from "../body.ts";
import type { AppEnv } from "../context.ts";
import { readEpcisForm } from "../epcis-form.ts";
import { toFieldErrors } from "../field-errors.ts";
import { doc } from "../openapi.ts";
import { listBody, listEnvelope, pageQueryEntries, toPageRequest } from "../pagination.ts";
import { query } from "../query.ts";

const TAGS = ["EPCIS"];

/** JSON bodies carry the document inline; beyond this, multipart streams it (413 REQUEST_TOO_LARGE). */
export const MAX_JSON_EPCIS_BYTES = 16 * 1024 * 1024;

const rulesSchema = v.pipe(
	v.union([v.array(v.string()), v.string()], "must be a list of rule names"),
	v.description(
		"schema_compliance, business_rules, dscsa_compliance (default: all); in a form also repeated fields or one comma-separated value",
	),
);

const validateSchema = v.object({
	document: v.pipe(
		v.string("must be the XML text of the document"),
		v.minLength(1, "must not be empty"),
		v.description("the EPCIS 1.2 or 2.0 XML document; in multipart/form-data a file (or text) part, streamed"),
	),
	validation_rules: v.optional(rulesSchema),
});

const PARAMETERS_DESCRIPTION = [
	"SimpleEventQuery parameters; each takes one value or a list (OR within a parameter, AND across parameters):",
	"eventType; GE_eventTime, LT_eventTime, LE_eventTime, GE_recordTime, LT_recordTime, LE_recordTime (ISO 8601 with a time zone);",
	"EQ_action; EQ_bizStep, EQ_disposition (CBV values in any form: URN, Web URI or bare word); EQ_readPoint, WD_readPoint, EQ_bizLocation, WD_bizLocation;",
	"EQ_bizTransaction_<type>, EQ_source_<type>, EQ_destination_<type>; EQ_transformationID; EQ_eventID;",
	"MATCH_epc, MATCH_parentID, MATCH_inputEPC, MATCH_outputEPC, MATCH_anyEPC, MATCH_epcClass, MATCH_inputEPCClass, MATCH_outputEPCClass, MATCH_anyEPCClass",
	"(EPC URIs, or EPC patterns such as urn:epc:idpat:sgtin:0614141.*.* or urn:epc:id:sgtin:0614141.107346.*);",
	"orderBy (eventTime | recordTime, default eventTime), orderDirection (ASC | DESC, default DESC), eventCountLimit, maxEventCount.",
].join(" ");

const querySchema = v.object({
	query_type: v.pipe(v.string(), v.description("SimpleEventQuery (the only query type)")),
	parameters: v.optional(v.pipe(v.record(v.string(), v.unknown()), v.description(PARAMETERS_DESCRIPTION)), {}),
});

const QUERY_DESCRIPTION = `Searches the EPCIS events of the tenant's messages: every inbound or outbound message (test and live) whose payload is an EPCIS 1.2 or 2.0 XML document (application/xml or text/xml, root EPCISDocument or EPCISQueryDocument) is indexed shortly after it is created. Events come back in EPCIS 2.0 JSON form with CBV values as bare words, recordTime = when their message was created, and source_message_id. Pages with page and per_page (query string).

Semantics: values single or a list, OR within a parameter and AND across. Vocabulary values are compared in canonical form, so urn:epcglobal:cbv:bizstep:shipping, https://ref.gs1.org/cbv/BizStep-shipping and shipping are the same; EQ_bizTransaction_po and EQ_bizTransaction_urn:epcglobal:cbv:btt:po too. MATCH_ values are EPC URIs (string equality) or EPC patterns, * fields last, in the pure identity pattern form (TDS §8: urn:epc:idpat:sgtin:0614141.*.* covers every SGTIN of that company prefix) or as an EPC URI (urn:epc:id:sgtin:0614141.107346.* the same way, EPCIS §8.2.7.1); a * elsewhere is a QueryParameterException; the class parameters also match classes written as patterns and, for an SGTIN pattern, the LGTIN classes of its GTINs. WD_readPoint and WD_bizLocation (with descendants) work without master data: an identifier covers itself and those that continue it after /, : or . (GS1 Digital Link /254/ extensions), and an SGLN with extension 0 every extension of its GLN. Times compare to the millisecond. Default order eventTime DESC; ties in indexing order. eventCountLimit keeps only the first N events in that order (total and pages); maxEventCount answers 422 EPCIS_QUERY_TOO_LARGE when more match. Unknown or malformed parameters: 422 EPCIS_QUERY_PARAMETER_INVALID naming each (QueryParameterException); another query_type: 422 EPCIS_NO_SUCH_QUERY.`;

function parseBody<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
	const result = v.safeParse(schema, value);
	if (result.success) return result.output;
	const fieldErrors = toFieldErrors(result.issues);
	const [field, messages] = Object.entries(fieldErrors)[0]!;
	throw new As2Error("VALIDATION_FAILED", `${field} ${messages[0]}`, { fieldErrors });
}

/** Rule names from JSON (a list) or a form (repeated fields, or one comma-separated value). */
function ruleNames(value: unknown): string[] | undefined {
	const names = parseBody(v.object({ validation_rules: v.optional(rulesSchema) }), {
		validation_rules: value,
	}).validation_rules;
	if (names === undefined) return undefined;
	return typeof names === "string"
		? names
				.split(",")
				.map((x) => x.trim())
				.filter((x) => x !== "")
		: names;
}

/** `/v1/epcis`: validate documents, query the events of message payloads (interface spec, EPCIS). */
export function epcisRoutes() {
	return new Hono<AppEnv>()
		.post(
			"/validate",
			doc({
				tags: TAGS,
				access: { permission: "messages:read", reach: "tenant" },
				summary: "Validate an EPCIS 1.2 or 2.0 XML document (messages:read)",
				description:
					"JSON with the document inline (up to 16 MB), or multipart/form-data with the document in the part `document` (a file), streamed through the validator in bounded memory up to the plan's payload size. Rules: schema_compliance (the GS1 XSD), business_rules (CBV, EPC URIs, actions, times, extensions), dscsa_compliance (GS1 US DSCSA guideline); default all. Answers the top-level object (no data envelope): a document that is not well-formed or hostile (a DOCTYPE with an internal subset or an external identifier: XML_DOCTYPE_FORBIDDEN; the bare `<!DOCTYPE name>` GS1's examples carry is accepted) is `valid: false` with an error of rule `parse`, never an error status. An unknown rule name is 422 EPCIS_UNKNOWN_RULE. Needs messages:read (messages:write includes it); stores nothing.",
				body: validateSchema,
				responses: {
					200: {
						description: "the verdict, per rule, with located errors and warnings",
						schema: epcisValidationSchema,
					},
				},
				errors: {
					413: "the document exceeds the JSON limit (REQUEST_TOO_LARGE) or the plan's size (PAYLOAD_TOO_LARGE)",
				},
			}),
			async (c) => {
				const principal = c.get("principal");
				const epcis = c.get("service").epcis;
				requirePermission(principal, "messages:read");
				let result: EpcisValidationResult;
				if (mediaType(c.req.header("content-type")) === "multipart/form-data") {
					const maxBytes = planOf(principal.plan, c.get("service").deps.config.enterpriseLimits).maxPayloadBytes;
					let early: EpcisRule[] | undefined;
					const form = await readEpcisForm(c.req.raw, {
						maxBytes,
						onDocument: (document, before) => {
							const names = ruleNames(before.validation_rules);
							early = names === undefined ? undefined : epcis.rules(principal, names);
							// Rules named after the document: validate with all, narrow once they are known.
							return epcis.validate(principal, document, early ?? EPCIS_RULES);
						},
					});
					if (!form.result)
						throw new As2Error("VALIDATION_FAILED", "document is required", {
							fieldErrors: { document: ["is required"] },
						});
					const rules = epcis.rules(principal, ruleNames(form.fields.validation_rules));
					result = early ? form.result : narrowValidation(form.result, rules);
				} else {
					const input = parseBody(validateSchema, await readLimitedBody(c, MAX_JSON_EPCIS_BYTES, tooLargeForJson));
					const rules = epcis.rules(principal, ruleNames(input.validation_rules));
					result = await epcis.validate(principal, input.document, rules);
				}
				c.get("service").deps.telemetry.epcisValidation(result.valid ? "valid" : "invalid");
				return c.json(epcisValidationView(result));
			},
		)
		.post(
			"/query",
			doc({
				tags: TAGS,
				access: { permission: "messages:read", reach: "tenant" },
				summary: "Query the EPCIS events of the tenant's messages: SimpleEventQuery (messages:read)",
				description: QUERY_DESCRIPTION,
				body: querySchema,
				responses: {
					200: { description: "a page of matching events and the total", schema: listEnvelope(epcisEventSchema) },
				},
			}),
			query(v.object(pageQueryEntries)),
			body(querySchema),
			async (c) => {
				const request = c.req.valid("query");
				const page = await c.get("service").epcis.query(c.get("principal"), {
					queryType: c.get("body").query_type,
					parameters: c.get("body").parameters,
					page: toPageRequest(request),
				});
				return c.json(listBody(page, request, epcisEventView));
			},
		);
}

function tooLargeForJson(): As2Error {
	return new As2Error(
		"REQUEST_TOO_LARGE",
		`JSON bodies are limited to ${MAX_JSON_EPCIS_BYTES} bytes; send larger documents as multipart/form-data (part "document")`,
	);
}
