import { As2Error, isFieldName, isFieldValue } from "@as2kit/core";

/**
 * Headers the AS2 message itself owns (RFC 4130 §6, the MDN request of §7.3, Subject from the
 * `subject` field) or HTTP framing and hop-by-hop headers (RFC 9110 §7.6.1): not settable per
 * message. A custom header must not say a second time, or differently, what the engine says.
 */
const RESERVED =
	/^(content-(type|length|transfer-encoding|disposition)|transfer-encoding|host|connection|keep-alive|upgrade|te|trailer|expect|proxy-.*|message-id|mime-version|as2-(from|to|version)|disposition-notification-(to|options)|receipt-delivery-option|date|subject|ediint-features|authorization)$/i;
const MAX_HEADERS = 50;
const MAX_VALUE_LENGTH = 4096;
/** C0 controls and DEL: never meant in a subject or a file name (RFC 5322 §3.2.5, RFC 6266 §4.3). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters refused
const CONTROL = /[\0-\x1f\x7f]/;
/** A UTF-16 half without its other half: no charset can encode it (RFC 3629 §3). */
const LONE_SURROGATE = /\p{Cs}/u;

export interface MessageHeaderInput {
	subject?: string | undefined;
	filename?: string | undefined;
	headers?: Record<string, string> | undefined;
}

/**
 * What a message of POST /v1/messages puts in its headers, checked before it is queued so
 * that a send never fails on it (422, every field at fault at once): the subject and file name
 * may hold any text, which goes out RFC 2047 / RFC 2231 encoded, but no control character or
 * lone surrogate; custom AS2 headers go out as given, so they must be RFC 9110 tokens and
 * printable US-ASCII, and may not override the engine's own headers.
 */
export function checkMessageHeaders(input: MessageHeaderInput): Record<string, string> {
	const fieldErrors: Record<string, string[]> = {};
	for (const field of ["subject", "filename"] as const) {
		const problem = textProblem(input[field]);
		if (problem) fieldErrors[field] = [problem];
	}
	const headers = input.headers ?? {};
	const problems = customHeaderProblems(headers);
	if (problems.length > 0) fieldErrors.headers = problems;
	const [first] = Object.entries(fieldErrors);
	if (first) throw new As2Error("VALIDATION_FAILED", `${first[0]} ${first[1][0]}`, { fieldErrors });
	return headers;
}

function textProblem(text: string | undefined): string | undefined {
	if (text === undefined) return undefined;
	if (CONTROL.test(text)) return "must not contain control characters (line breaks, tabs, NUL)";
	if (LONE_SURROGATE.test(text)) return "must not contain unpaired UTF-16 surrogates";
	return undefined;
}

function customHeaderProblems(headers: Record<string, string>): string[] {
	const entries = Object.entries(headers);
	if (entries.length > MAX_HEADERS) return [`may hold at most ${MAX_HEADERS} headers`];
	const problems: string[] = [];
	for (const [name, value] of entries) {
		if (!isFieldName(name)) {
			problems.push(`${JSON.stringify(name)} is not a valid header name (letters, digits and !#$%&'*+-.^_\`|~)`);
		} else if (RESERVED.test(name)) {
			problems.push(`${name} is set by the AS2 engine`);
		} else if (typeof value !== "string" || !isFieldValue(value)) {
			problems.push(`${name} may hold only printable US-ASCII (no line breaks, control or non-ASCII characters)`);
		} else if (value.length > MAX_VALUE_LENGTH) {
			problems.push(`${name} may hold at most ${MAX_VALUE_LENGTH} characters`);
		}
	}
	return problems;
}
