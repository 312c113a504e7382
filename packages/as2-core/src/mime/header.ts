import { concatBytes, latin1 } from "../bytes/index.ts";
import { As2Error } from "../errors/index.ts";

/**
 * An ordered list of header fields. Lookup is case-insensitive (RFC 5322 §1.2.2), the original
 * spelling is kept for output because some AS2 partners compare header names byte for byte.
 *
 * @example
 * const headers = new MimeHeaders([["Content-Type", "application/edi-x12"]]);
 * headers.get("content-type"); // "application/edi-x12"
 */
export class MimeHeaders implements Iterable<[string, string]> {
	#list: [string, string][] = [];
	/** The names lowercased, index for index with #list: looked up without lowercasing again. */
	#keys: string[] = [];

	constructor(list?: Iterable<[string, string]>) {
		if (list) for (const [name, value] of list) this.append(name, value);
	}

	/** The first value of `name`. */
	get(name: string): string | undefined {
		const at = this.#keys.indexOf(name.toLowerCase());
		return at < 0 ? undefined : this.#list[at]![1];
	}

	getAll(name: string): string[] {
		const key = name.toLowerCase();
		return this.#list.filter((_, i) => this.#keys[i] === key).map(([, v]) => v);
	}

	has(name: string): boolean {
		return this.get(name) !== undefined;
	}

	/** Replaces every field called `name` with one, at the place of the first. */
	set(name: string, value: string): this {
		const key = name.toLowerCase();
		const at = this.#keys.indexOf(key);
		if (at < 0) return this.append(name, value);
		this.#list[at] = [name, value];
		this.#keep((k, i) => i <= at || k !== key);
		return this;
	}

	append(name: string, value: string): this {
		this.#list.push([name, value]);
		this.#keys.push(name.toLowerCase());
		return this;
	}

	delete(name: string): this {
		const key = name.toLowerCase();
		this.#keep((k) => k !== key);
		return this;
	}

	#keep(keep: (key: string, index: number) => boolean): void {
		const kept = this.#keys.map(keep);
		this.#list = this.#list.filter((_, i) => kept[i]);
		this.#keys = this.#keys.filter((_, i) => kept[i]);
	}

	get size(): number {
		return this.#list.length;
	}

	/** A copy of the fields, in order. */
	entries(): [string, string][] {
		return this.#list.map(([n, v]) => [n, v]);
	}

	[Symbol.iterator](): Iterator<[string, string]> {
		return this.entries()[Symbol.iterator]();
	}
}

/** RFC 5322 §3.6.8: a field name is printable US-ASCII except the colon. */
const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]+$/;

/**
 * Parses a header block (everything before the blank line; the blank line itself and anything
 * after it are ignored). Bytes are read as latin1 so that every octet survives as one char.
 * Folded lines are unfolded (RFC 5322 §2.2.3) and LF-only line ends are accepted, because
 * several AS2 products write them inside MIME parts.
 *
 * @example
 * parseHeaderBlock(latin1("Content-Type: text/plain;\r\n charset=utf-8\r\n")).get("content-type");
 * // "text/plain; charset=utf-8"
 */
export function parseHeaderBlock(bytes: Uint8Array): MimeHeaders {
	const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
	const headers: [string, string][] = [];
	for (const line of text.split(/\r?\n/)) {
		if (line === "" || line === "\r") break;
		const first = line.charCodeAt(0);
		if (first === 0x20 || first === 0x09) {
			const last = headers[headers.length - 1];
			if (!last) throw new As2Error("MALFORMED_MIME", "header block starts with a continuation line");
			// RFC 5322 §2.2.3: unfolding removes the line break only, the white space stays.
			last[1] += line;
			continue;
		}
		const colon = line.indexOf(":");
		if (colon < 0) throw new As2Error("MALFORMED_MIME", `header line without a colon: ${preview(line)}`);
		// RFC 5322 §4.5.3 (obsolete syntax) allows white space before the colon. Trimmed by a
		// loop: `/[ \t]+$/` backtracks quadratically over a long run of blanks inside a line.
		let nameEnd = colon;
		while (nameEnd > 0 && (line[nameEnd - 1] === " " || line[nameEnd - 1] === "\t")) nameEnd--;
		const name = line.slice(0, nameEnd);
		if (!FIELD_NAME.test(name)) throw new As2Error("MALFORMED_MIME", `invalid header name: ${preview(name)}`);
		headers.push([name, line.slice(colon + 1)]);
	}
	const parsed = new MimeHeaders();
	for (const [name, value] of headers) parsed.append(name, value.trim());
	return parsed;
}

/**
 * `Name: value\r\n` for each field. Never folds: folded AS2 headers break several receivers
 * (Drummond interoperability guidance), and a line-break in a value would inject a header, so
 * it is refused. Values are written as latin1 (the inverse of {@link parseHeaderBlock}); a value
 * with characters beyond U+00FF is written as UTF-8 (RFC 6532 §3.2).
 */
export function serializeHeaders(headers: MimeHeaders | Iterable<[string, string]>): Uint8Array {
	const text = formatHeaderLines(headers);
	// One encoding for the block: a line is UTF-8 only when it cannot be latin1.
	if (!BEYOND_LATIN1.test(text)) return latin1(text);
	return concatBytes(
		text
			.split(/(?<=\r\n)/)
			.map((line) => (BEYOND_LATIN1.test(line) ? new Uint8Array(Buffer.from(line, "utf8")) : latin1(line))),
	);
}

const BEYOND_LATIN1 = /[^\0-\xff]/;

/** The `Name: value\r\n` lines of {@link serializeHeaders}, checked, as one string. */
function formatHeaderLines(headers: MimeHeaders | Iterable<[string, string]>): string {
	let text = "";
	for (const [name, value] of headers) {
		if (!FIELD_NAME.test(name)) throw new TypeError(`invalid header name: ${JSON.stringify(name)}`);
		if (/[\r\n]/.test(value)) throw new TypeError(`header ${name} contains a line break`);
		text += `${name}: ${value}\r\n`;
	}
	return text;
}

function preview(text: string): string {
	return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}
