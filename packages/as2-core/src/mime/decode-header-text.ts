import { decodeCharset, stringBytes } from "./charset.ts";

/**
 * RFC 2047 §2 encoded-word: `=?charset?B|Q?text?=`, the charset possibly with an RFC 2231 §5
 * language (`UTF-8*de`). Matched in one pass, no backtracking: no part may hold `?` or space.
 */
const ENCODED_WORD = /=\?([^?\s*]+)(?:\*[^?\s]*)?\?([BbQq])\?([^?\s]*)\?=/g;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The text of an unstructured header value (a `Subject`) as it arrived: header octets read one
 * char per octet (Latin-1, as Node's HTTP parser and parseHeaderBlock read them). Tolerant, as
 * partners send all of these (the same reading as a form's raw `filename`, content-type.ts):
 * - raw 8-bit octets are UTF-8 when they are valid UTF-8, Latin-1 otherwise;
 * - RFC 2047 encoded-words are decoded in their charset (B or Q), white space between two of
 *   them dropped (§6.2); adjacent words of one charset are joined before decoding, so a
 *   character a sender split across two words still reads whole; a word that does not decode
 *   stays as it is;
 * - control characters, which a header's text never means (RFC 5322 §3.2.5), become a space
 *   (CR, LF, tab) or U+FFFD, so that no NUL reaches storage.
 *
 * @example
 * decodeHeaderText("=?UTF-8?Q?Bestellung_M=C3=BCller?="); // "Bestellung Müller"
 */
export function decodeHeaderText(value: string): string {
	const octets = !/[^\0-\xff]/.test(value);
	const plain = (text: string) =>
		octets && /[\x80-\xff]/.test(text) ? decodeCharset(stringBytes(text), undefined) : text;
	return withoutControls(decodeEncodedWords(value, plain));
}

interface Word {
	start: number;
	end: number;
	charset: string;
	bytes: Uint8Array;
}

/** The encoded-words of `text` decoded; the text around them through `plain`. */
function decodeEncodedWords(text: string, plain: (text: string) => string): string {
	const words: Word[] = [];
	for (const match of text.matchAll(ENCODED_WORD)) {
		const [whole, charset, encoding, encoded] = match as unknown as [string, string, string, string];
		const bytes = encoding.toUpperCase() === "B" ? bDecode(encoded) : qDecode(encoded);
		if (bytes)
			words.push({ start: match.index, end: match.index + whole.length, charset: charset.toLowerCase(), bytes });
	}
	if (words.length === 0) return plain(text);
	let out = "";
	let at = 0;
	for (let i = 0; i < words.length; ) {
		out += plain(text.slice(at, words[i]!.start));
		// A run of words of one charset with only white space between them is one text (§6.2).
		let j = i;
		while (
			j + 1 < words.length &&
			words[j + 1]!.charset === words[i]!.charset &&
			/^[ \t\r\n]*$/.test(text.slice(words[j]!.end, words[j + 1]!.start))
		) {
			j++;
		}
		const run = words.slice(i, j + 1);
		out += decodeCharset(Buffer.concat(run.map((w) => w.bytes)), words[i]!.charset);
		at = words[j]!.end;
		// White space between this run and an adjacent word of another charset goes too.
		const next = words[j + 1];
		if (next && /^[ \t\r\n]*$/.test(text.slice(at, next.start))) at = next.start;
		i = j + 1;
	}
	return out + plain(text.slice(at));
}

function bDecode(encoded: string): Uint8Array | undefined {
	if (!BASE64.test(encoded) || encoded.length % 4 === 1) return undefined;
	return Buffer.from(encoded, "base64");
}

/** RFC 2047 §4.2; a `=` not followed by two hex digits is kept as it is. */
function qDecode(encoded: string): Uint8Array {
	const out: number[] = [];
	for (let i = 0; i < encoded.length; i++) {
		const c = encoded.charCodeAt(i);
		if (c === 0x5f) {
			out.push(0x20);
		} else if (c === 0x3d && /^[0-9A-Fa-f]{2}$/.test(encoded.slice(i + 1, i + 3))) {
			out.push(Number.parseInt(encoded.slice(i + 1, i + 3), 16));
			i += 2;
		} else {
			// Not allowed here, but kept: a char that is an octet as that octet, others as UTF-8.
			out.push(...stringBytes(encoded[i]!));
		}
	}
	return Uint8Array.from(out);
}

/** Control characters as a space (CR, LF, tab) or U+FFFD: text a header means never holds them. */
export function withoutControls(text: string): string {
	// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters replaced
	return text.replace(/[\t\r\n]/g, " ").replace(/[\0-\x08\x0b\x0c\x0e-\x1f\x7f]/g, "\ufffd");
}
