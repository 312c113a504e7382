import { As2Error } from "@as2kit/core";
import type { MiddlewareHandler } from "hono";

/**
 * Text a request may carry: well-formed Unicode without NUL. No id, name, e-mail, search term,
 * URL or setting of the API holds U+0000, and PostgreSQL's text type can neither store nor
 * compare one (SQLSTATE 22021: the request was a 500); a lone surrogate (`"\ud800"` in JSON)
 * is no character at all, cannot be written as UTF-8, and made the certificate of a tenant so
 * named fail (a 500). Both are refused here, the same on every store. Payload bytes may hold
 * anything; the caller names the fields that carry them.
 */
// With the u flag a pair is one code point: only a surrogate standing alone is a Cs code point.
const LONE_SURROGATE = /\p{Cs}/u;

export function textProblem(text: string): string | null {
	if (text.includes("\u0000")) return "must not contain NUL (U+0000) characters";
	if (LONE_SURROGATE.test(text)) return "must be well-formed Unicode (it holds a lone surrogate)";
	return null;
}

/** The field errors (`a.b.0`; `request` for the whole body) of strings or keys in `value` that `textProblem` refuses. */
export function textFieldErrors(value: unknown, except: ReadonlySet<string> = new Set()): Record<string, string[]> {
	const errors: Record<string, string[]> = {};
	const pending: [unknown, string][] = [[value, ""]];
	for (let item = pending.pop(); item; item = pending.pop()) {
		const [current, path] = item;
		if (except.has(path)) continue;
		if (typeof current === "string") {
			const problem = textProblem(current);
			if (problem) errors[path || "request"] = [problem];
		} else if (typeof current === "object" && current !== null && !(current instanceof Blob)) {
			for (const [key, child] of Object.entries(current)) {
				const childPath = path ? `${path}.${key}` : key;
				const problem = textProblem(key);
				if (problem) errors[childPath] = [problem];
				else pending.push([child, childPath]);
			}
		}
	}
	return errors;
}

/** The 422 naming each field of `fieldErrors`. */
export function textError(fieldErrors: Record<string, string[]>): As2Error {
	const message = Object.entries(fieldErrors)
		.map(([field, [problem]]) => `${field} ${problem}`)
		.join("; ");
	return new As2Error("VALIDATION_FAILED", message, { fieldErrors });
}

/** Throws the 422 when `value` holds text `textProblem` refuses (outside `except`). */
export function refuseBadText(value: unknown, except?: ReadonlySet<string>): void {
	const errors = textFieldErrors(value, except);
	if (Object.keys(errors).length > 0) throw textError(errors);
}

/**
 * NUL (`%00`) in the URL: in the path it names nothing (404); in the query string, a 422
 * naming each parameter that holds one. (Bytes that are not UTF-8 decode to U+FFFD.)
 */
export function refuseNulInUrl(): MiddlewareHandler {
	// Not async: it only checks, then hands on `next()`'s own promise (context.ts, on promises).
	return (c, next) => {
		const url = c.req.url;
		if (url.includes("%00")) {
			const { pathname, searchParams } = new URL(url);
			if (pathname.includes("%00")) throw new As2Error("NOT_FOUND", `no resource at ${c.req.method} ${pathname}`);
			const fields = [...searchParams].filter(([name, value]) => (name + value).includes("\u0000")).map(([n]) => n);
			if (fields.length > 0) {
				throw textError(
					Object.fromEntries(fields.map((field) => [field, ["must not contain NUL (U+0000) characters"]])),
				);
			}
		}
		return next();
	};
}
