import { As2Error } from "@as2kit/core";
import type * as v from "valibot";

/**
 * Valibot issues as the spec's `errors` object: a dotted field path to its messages, in
 * words a client can show ("is required", "must be a boolean").
 */
export function toFieldErrors(issues: readonly v.BaseIssue<unknown>[]): Record<string, string[]> {
	const out: Record<string, string[]> = {};
	for (const issue of issues) {
		const field = issue.path?.map((item) => String(item.key)).join(".") || "request";
		out[field] = [...(out[field] ?? []), describe(issue)];
	}
	return out;
}

/** The 422 of failed schema checks: every field named, in `errors` and in the message. */
export function schemaError(issues: readonly v.BaseIssue<unknown>[]): As2Error {
	const fieldErrors = toFieldErrors(issues);
	const message = Object.entries(fieldErrors)
		.map(([field, messages]) => `${field} ${messages[0]}`)
		.join("; ");
	return new As2Error("VALIDATION_FAILED", message || "the request is invalid", { fieldErrors });
}

function describe(issue: v.BaseIssue<unknown>): string {
	if (issue.kind === "schema" && issue.received === "undefined") return "is required";
	if (issue.kind === "schema" && issue.type !== "union" && issue.type !== "variant") {
		return issue.type === "picklist"
			? `must be one of ${issue.expected}`
			: `must be ${article(issue.expected ?? issue.type)}`;
	}
	const isDefaultMessage = /^Invalid \w+: /.test(issue.message);
	const bound = BOUNDS[issue.type];
	if (isDefaultMessage && bound) return bound(String(issue.requirement));
	return issue.message.replace(/^Invalid \w+: /, "");
}

/** Valibot's default range messages in words: "must be at most 100", not "Expected <=100 but received 500". */
const BOUNDS: Record<string, (requirement: string) => string> = {
	min_value: (n) => `must be at least ${n}`,
	max_value: (n) => `must be at most ${n}`,
	min_length: (n) => `must have at least ${n} characters`,
	max_length: (n) => `must have at most ${n} characters`,
};

function article(expected: string): string {
	return /^[aeiou]/i.test(expected) ? `an ${expected}` : `a ${expected}`;
}
