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

function describe(issue: v.BaseIssue<unknown>): string {
	if (issue.kind === "schema" && issue.received === "undefined") return "is required";
	if (issue.kind === "schema" && issue.type !== "union" && issue.type !== "variant") {
		return issue.type === "picklist"
			? `must be one of ${issue.expected}`
			: `must be ${article(issue.expected ?? issue.type)}`;
	}
	return issue.message.replace(/^Invalid \w+: /, "");
}

function article(expected: string): string {
	return /^[aeiou]/i.test(expected) ? `an ${expected}` : `a ${expected}`;
}
