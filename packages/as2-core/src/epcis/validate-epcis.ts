import { As2Error, isAs2Error, toAs2Error } from "../errors/index.ts";
import { resolveLimits } from "./limits.ts";
import { normalizeEvent } from "./normalize-event.ts";
import { type DocumentItem, readDocument } from "./read-document.ts";
import { createBusinessRules } from "./rules/business-rules.ts";
import { createDscsaRules } from "./rules/dscsa-compliance.ts";
import type { IssueInput, RuleContext, RuleSet } from "./rules/rule-context.ts";
import { getEpcisSchema } from "./schema/epcis-schema.ts";
import { SchemaValidator } from "./schema/schema-validator.ts";
import {
	EPCIS_RULES,
	type EpcisInput,
	type EpcisIssue,
	type EpcisRule,
	type EpcisValidationResult,
	type EpcisVersion,
	type ValidateEpcisOptions,
} from "./types.ts";
import { XmlSyntaxError } from "./xml/xml-syntax-error.ts";

/**
 * Rule names as accepted by {@link validateEpcis} (default: all); anything else is As2Error
 * EPCIS_UNKNOWN_RULE with a field error on `validation_rules`, for a 422 before any work.
 *
 * @example
 * parseEpcisRules(body.validation_rules); // ["schema_compliance", …] or throws
 */
export function parseEpcisRules(rules: readonly string[] | undefined): EpcisRule[] {
	if (rules === undefined) return [...EPCIS_RULES];
	const unknown = rules.filter((r) => !(EPCIS_RULES as readonly string[]).includes(r));
	if (unknown.length > 0) {
		throw new As2Error("EPCIS_UNKNOWN_RULE", `unknown validation rule(s): ${unknown.join(", ")}`, {
			details: { unknown, known: EPCIS_RULES },
			fieldErrors: { validation_rules: [`unknown: ${unknown.join(", ")}; known: ${EPCIS_RULES.join(", ")}`] },
		});
	}
	return [...new Set(rules as EpcisRule[])];
}

/**
 * Validates an EPCIS 1.2 or 2.0 XML document (EPCISDocument or EPCISQueryDocument) in one
 * streaming pass, against the rule sets asked for: `schema_compliance` (the GS1 XSD
 * structure and datatypes), `business_rules` (CBV vocabularies, EPC URI syntax, action and
 * time rules, extension namespaces) and `dscsa_compliance` (GS1 US DSCSA guideline data).
 *
 * Never throws for a bad document: malformed or hostile XML (DOCTYPE, entity tricks, over a
 * limit) gives `valid: false` with an issue of rule "parse" and every requested rule failed.
 * Throws As2Error EPCIS_UNKNOWN_RULE for a rule name it does not know.
 *
 * @example
 * const result = await validateEpcis(xml, { rules: ["schema_compliance", "business_rules"], now: new Date() });
 * if (!result.valid) for (const e of result.errors) console.log(e.rule, e.code, e.line, e.message);
 */
export async function validateEpcis(
	input: EpcisInput,
	options: ValidateEpcisOptions = {},
): Promise<EpcisValidationResult> {
	const rules = parseEpcisRules(options.rules);
	const limits = resolveLimits(options.limits);
	const now = options.now ?? new Date();
	const errors: EpcisIssue[] = [];
	const warnings: EpcisIssue[] = [];
	const failed = new Set<EpcisRule | "parse">();
	let dropped = 0;
	const push = (list: EpcisIssue[], issue: EpcisIssue): void => {
		if (list.length < limits.maxErrors) list.push(issue);
		else dropped++;
	};
	let schemaEventIndex: number | undefined;
	const sink = (rule: EpcisRule) => ({
		error: (issue: IssueInput) => {
			failed.add(rule);
			const index =
				rule === "schema_compliance" && schemaEventIndex !== undefined ? { eventIndex: schemaEventIndex } : {};
			push(errors, { rule, ...index, ...issue });
		},
		warning: (issue: IssueInput) => push(warnings, { rule, ...issue }),
	});
	let version: EpcisVersion | null = null;
	let eventCount = 0;
	try {
		let schema: SchemaValidator | null = null;
		const ruleSets: RuleSet[] = [];
		let query = false;
		for await (const item of readDocument(input, limits)) {
			if (item.kind === "root") {
				version = item.version;
				if (version === null) {
					failed.add("parse");
					push(errors, {
						rule: "parse",
						code: "EPCIS_NOT_A_DOCUMENT",
						message: `root element {${item.tag.ns ?? ""}}${item.tag.local} is not an EPCISDocument or EPCISQueryDocument of EPCIS 1.2 or 2.0`,
						path: `/${item.tag.qname}`,
						line: item.tag.line,
						column: item.tag.column,
					});
					break;
				}
				query = item.root === "EPCISQueryDocument";
				const ctx = (rule: EpcisRule): RuleContext => ({ version: version!, now, ...sink(rule) });
				if (rules.includes("schema_compliance")) {
					const report = sink("schema_compliance");
					schema = new SchemaValidator(getEpcisSchema(version), (i) => report.error(i));
				}
				if (rules.includes("business_rules")) ruleSets.push(createBusinessRules(ctx("business_rules")));
				if (rules.includes("dscsa_compliance")) ruleSets.push(createDscsaRules(ctx("dscsa_compliance")));
				continue;
			}
			if (schema) {
				schemaEventIndex = item.kind === "element" ? item.events[0]?.index : undefined;
				feedSchema(schema, item, query);
			}
			if (item.kind !== "element") continue;
			if (item.events.length === 0) {
				const isHeader = item.element.local === "EPCISHeader" && item.element.ns === null;
				for (const r of ruleSets) {
					if (isHeader) r.header?.(item.element, item.path);
					else r.other?.(item.element, item.path);
				}
				continue;
			}
			for (const located of item.events) {
				eventCount++;
				if (ruleSets.length === 0) continue;
				const event = normalizeEvent(located.element);
				for (const r of ruleSets) r.event(event, located);
			}
		}
		if (version !== null) for (const r of ruleSets) r.finish?.();
	} catch (error) {
		// Only As2Error leaves: a failing input stream or a defect here keeps its cause.
		if (!(error instanceof XmlSyntaxError))
			throw isAs2Error(error) ? error : toAs2Error(error, "INTERNAL_ERROR", "EPCIS validation failed");
		failed.add("parse");
		push(errors, {
			rule: "parse",
			code: error.code,
			message: error.message,
			...(error.line !== undefined ? { line: error.line, column: error.column } : {}),
		});
	}
	if (dropped > 0) {
		warnings.push({
			rule: "parse",
			code: "EPCIS_ISSUES_TRUNCATED",
			message: `${dropped} more issues not listed (maxErrors ${limits.maxErrors})`,
		});
	}
	const parseFailed = failed.has("parse");
	const results: Partial<Record<EpcisRule, "passed" | "failed">> = {};
	for (const rule of rules) results[rule] = parseFailed || failed.has(rule) ? "failed" : "passed";
	return { valid: !parseFailed && failed.size === 0, version, results, errors, warnings, eventCount };
}

function feedSchema(schema: SchemaValidator, item: DocumentItem, query: boolean): void {
	if (query) {
		// EPCISQueryDocument: the query envelope is not checked; events are, as EventList children.
		if (item.kind === "open" && item.eventList) schema.openEventList(item.path);
		else if (item.kind === "close") schema.closeIfEventList();
		else if (item.kind === "element" && item.events.length > 0) schema.element(item.element, item.path);
		return;
	}
	switch (item.kind) {
		case "open":
			schema.open(item.tag, item.path);
			break;
		case "text":
			schema.text(item.line, item.column, item.cdata);
			break;
		case "close":
			schema.close(item.line, item.column);
			break;
		case "element":
			schema.element(item.element, item.path);
			break;
	}
}
