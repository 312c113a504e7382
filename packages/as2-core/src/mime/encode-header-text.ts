/** RFC 2047 §2: an encoded-word is at most 75 characters. */
const MAX_WORD = 75;
const PREFIX_LENGTH = "=?UTF-8?B?".length;
const ENCODED_TEXT_MAX = MAX_WORD - PREFIX_LENGTH - "?=".length;
/** RFC 2047 §5(3): the characters a Q encoded-word may carry as they are, in any header. */
const Q_SAFE = /^[A-Za-z0-9!*+\-/]$/;
const utf8 = new TextEncoder();

/**
 * An unstructured header value (a `Subject`) as it may go on the wire: printable US-ASCII
 * unchanged; anything else as RFC 2047 encoded-words in UTF-8, Q or B, whichever is shorter
 * (as Python's email package chooses). Each encoded-word stays within 75 characters and holds
 * whole characters (§5); they are separated by one space on one line, never folded, since an
 * AS2 header is an HTTP header (RFC 9112 §5.2 forbids obs-fold; Drummond guidance: no folding).
 * Text that merely looks like an encoded-word (`=?`) is encoded too, so that it reads back as
 * written. Lone surrogates become U+FFFD.
 *
 * @example
 * encodeHeaderText("Bestellung Müller"); // "=?UTF-8?Q?Bestellung_M=C3=BCller?="
 */
export function encodeHeaderText(text: string): string {
	if (/^[\x20-\x7e]*$/.test(text) && !text.includes("=?")) return text;
	const characters = Array.from(text, (c) => utf8.encode(c));
	const q = encodedWords(characters, "Q");
	const b = encodedWords(characters, "B");
	return q.length <= b.length ? q : b;
}

function encodedWords(characters: Uint8Array[], encoding: "Q" | "B"): string {
	const encode = encoding === "Q" ? qEncode : bEncode;
	const words: string[] = [];
	let bytes: number[] = [];
	for (const character of characters) {
		const next = [...bytes, ...character];
		if (bytes.length > 0 && encode(next).length > ENCODED_TEXT_MAX) {
			words.push(encode(bytes));
			bytes = [...character];
		} else {
			bytes = next;
		}
	}
	if (bytes.length > 0 || words.length === 0) words.push(encode(bytes));
	return words.map((word) => `=?UTF-8?${encoding}?${word}?=`).join(" ");
}

/** RFC 2047 §4.2: `_` for a space, `=XX` for every octet that is not safe. */
function qEncode(bytes: number[]): string {
	let out = "";
	for (const byte of bytes) {
		const c = String.fromCharCode(byte);
		if (byte === 0x20) out += "_";
		else if (Q_SAFE.test(c)) out += c;
		else out += `=${byte.toString(16).toUpperCase().padStart(2, "0")}`;
	}
	return out;
}

function bEncode(bytes: number[]): string {
	return Buffer.from(bytes).toString("base64");
}
