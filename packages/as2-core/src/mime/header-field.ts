/** RFC 9110 §5.1: a field name is a token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** RFC 9110 §5.5 field-value without obs-text: visible US-ASCII, space and tab. */
const FIELD_VALUE = /^[\x20-\x7e\t]*$/;

/** Whether `name` may name an HTTP header field (a token: no space, colon, NUL or non-ASCII). */
export function isFieldName(name: string): boolean {
	return TOKEN.test(name);
}

/**
 * Whether `value` goes on the wire as it is and reads back the same everywhere: printable
 * US-ASCII, space and tab. No line break (header injection), no control character, and no
 * 8-bit text, which RFC 9110 §5.5 keeps only for old senders and receivers read as they like.
 */
export function isFieldValue(value: string): boolean {
	return FIELD_VALUE.test(value);
}
