import { As2Error, type EpcisInput, type EpcisRule, type EpcisValidationResult, parseEpcisRules } from "@as2kit/core";
import type { EpcisStoredEvent, Page, PageRequest } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import { type Principal, requirePermission } from "../principal.ts";
import { parseSimpleEventQuery } from "./query-parameters.ts";

export interface EpcisQueryRequest {
	queryType: string;
	parameters: Record<string, unknown>;
	page: PageRequest;
}

/**
 * EPCIS (interface spec, EPCIS): validation of documents, and SimpleEventQuery over the
 * events of every message whose payload was an EPCIS document (indexed by the `epcis.index`
 * job of the message pipeline, epcis/index-job.ts).
 * Both endpoints need `messages:read` (a `messages:write` key includes it): validation reads
 * nothing stored but is part of working with message payloads.
 */
export function createEpcisService(deps: ServiceDeps) {
	return {
		/** The rule names of a request, checked before any document is read (422 EPCIS_UNKNOWN_RULE). */
		rules(principal: Principal, names: readonly string[] | undefined): EpcisRule[] {
			requirePermission(principal, "messages:read");
			return parseEpcisRules(names);
		},

		/**
		 * Validates a document streamed from anywhere, in bounded memory; never throws for a bad
		 * document (one over the engine's time or memory budget is `valid: false` too). Throws
		 * SERVICE_UNAVAILABLE when the engine is at capacity.
		 */
		async validate(principal: Principal, document: EpcisInput, rules: readonly EpcisRule[]) {
			requirePermission(principal, "messages:read");
			return deps.epcisEngine.validate(document, { rules, now: deps.now() });
		},

		/** `POST /v1/epcis/query`: a page of the tenant's matching events and their total. */
		async query(principal: Principal, request: EpcisQueryRequest): Promise<Page<EpcisStoredEvent>> {
			requirePermission(principal, "messages:read");
			if (request.queryType !== "SimpleEventQuery") {
				throw new As2Error(
					"EPCIS_NO_SUCH_QUERY",
					`unknown query ${request.queryType}; the service answers SimpleEventQuery`,
					{
						fieldErrors: { query_type: ["must be SimpleEventQuery"] },
						details: { exception: "NoSuchNameException" },
					},
				);
			}
			const query = parseSimpleEventQuery(request.parameters);
			const page = await deps.store.epcis.queryEvents(principal.tenantId, query.filter, {
				...query.order,
				...(query.eventCountLimit !== undefined ? { limit: query.eventCountLimit } : {}),
				page: request.page,
			});
			if (query.maxEventCount !== undefined && page.total > query.maxEventCount) {
				throw new As2Error(
					"EPCIS_QUERY_TOO_LARGE",
					`${page.total} events match, more than maxEventCount ${query.maxEventCount}`,
					{
						fieldErrors: { "parameters.maxEventCount": [`${page.total} events match`] },
						details: {
							exception: "QueryTooLargeException",
							matching: page.total,
							max_event_count: query.maxEventCount,
						},
					},
				);
			}
			return page;
		},
	};
}

export type EpcisService = ReturnType<typeof createEpcisService>;

/**
 * A result of every rule narrowed to `rules`, as if only they had run: for a multipart form
 * that names its rules after the document, which is validated while it streams in.
 */
export function narrowValidation(result: EpcisValidationResult, rules: readonly EpcisRule[]): EpcisValidationResult {
	const keep = (issue: { rule: string }) => issue.rule === "parse" || (rules as readonly string[]).includes(issue.rule);
	const results: EpcisValidationResult["results"] = {};
	for (const rule of rules) results[rule] = result.results[rule] ?? "failed";
	const parseFailed = result.errors.some((e) => e.rule === "parse");
	return {
		...result,
		valid: !parseFailed && rules.every((rule) => results[rule] === "passed"),
		results,
		errors: result.errors.filter(keep),
		warnings: result.warnings.filter(keep),
	};
}
