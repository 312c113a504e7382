import { As2Error } from "@as2kit/core";

/**
 * The most values a request body may hold: JSON members and list items, form fields. Far
 * above any request of the API (a few dozen), low enough that a hostile body is refused
 * before anything walks it (body-parser's `parameterLimit` answers 413 the same way).
 */
export const MAX_BODY_VALUES = 10_000;

/** The deepest nesting of a request body (JSON objects and lists, form `a[b][c]` keys). */
export const MAX_BODY_DEPTH = 32;

export function tooManyValues(): As2Error {
	return new As2Error("REQUEST_TOO_LARGE", `the request body holds more than ${MAX_BODY_VALUES} values`);
}

export function tooDeep(): As2Error {
	return new As2Error("VALIDATION_FAILED", `the request body nests deeper than ${MAX_BODY_DEPTH} levels`, {
		fieldErrors: { request: [`nests deeper than ${MAX_BODY_DEPTH} levels`] },
	});
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const COMMA = 0x2c;
/** What counts: quotes (to skip strings), brackets and commas. */
const STRUCTURE = /["[\]{},]/g;

/**
 * Refuses JSON text nesting deeper than {@link MAX_BODY_DEPTH} or holding more than
 * {@link MAX_BODY_VALUES} values, in one pass over the text and before `JSON.parse`: parsing
 * 16 MB of `[[[[…` takes seconds, and whatever walks the result recursively would overflow
 * the stack. Counts only structure outside strings (skipped with `indexOf`, so a 16 MB
 * string costs a few milliseconds); malformed text is left to `JSON.parse`.
 */
export function checkJsonShape(text: string): void {
	let depth = 0;
	let values = 0;
	STRUCTURE.lastIndex = 0;
	// `test`, not `exec`: the match is one character, just before `lastIndex`, and `exec` made a
	// match array for each one (some 1.3 KB of heap per submitted message, issue #20).
	while (STRUCTURE.test(text)) {
		const index = STRUCTURE.lastIndex - 1;
		const code = text.charCodeAt(index);
		if (code === QUOTE) {
			STRUCTURE.lastIndex = closingQuote(text, index + 1) + 1;
		} else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
			if (++depth > MAX_BODY_DEPTH) throw tooDeep();
			if (++values > MAX_BODY_VALUES) throw tooManyValues();
		} else if (code === COMMA) {
			if (++values > MAX_BODY_VALUES) throw tooManyValues();
		} else {
			depth--;
		}
	}
}

/** The quote that ends the string starting at `from`: one preceded by an even run of backslashes. */
function closingQuote(text: string, from: number): number {
	for (let quote = text.indexOf('"', from); quote >= 0; quote = text.indexOf('"', quote + 1)) {
		let k = quote - 1;
		while (k >= from && text.charCodeAt(k) === BACKSLASH) k--;
		if ((quote - 1 - k) % 2 === 0) return quote;
	}
	return text.length;
}
