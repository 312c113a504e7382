import { As2Error } from "../errors/index.ts";
import { decodeCharset, stringBytes } from "./charset.ts";

/** A parsed Content-Type (RFC 2045 §5.1). Type, subtype and parameter names are lowercase. */
export interface ContentType {
	type: string;
	subtype: string;
	/** `type/subtype`, lowercase. */
	mediaType: string;
	/** Parameter names lowercase, values as sent (RFC 2231 continuations joined and decoded). */
	params: Record<string, string>;
}

/** RFC 2045 §5.1: token := 1*<any (US-ASCII) CHAR except SPACE, CTLs, or tspecials>. */
const TOKEN = /^[!#$%&'*+\-.^_`{|}~0-9A-Za-z]+$/;
/** RFC 2231 §7: attribute-char, what an extended value may carry without percent-encoding. */
const ATTRIBUTE_CHAR = /[!#$&+\-.^_`{|}~0-9A-Za-z]/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** `name`, `name*`, `name*0`, `name*0*` (RFC 2231 §3, §4). */
const PARAM_NAME = /^([^*]+)(?:\*(\d{1,4}))?(\*)?$/;

/**
 * Parses a Content-Type value. Tolerant of what AS2 partners send: any case, quoted or bare
 * values, stray white space and semicolons, RFC 2231 continuations and charset-encoded values,
 * and a doubled type such as `application/application/edifact` (the last two segments win).
 * An empty value is `text/plain; charset=us-ascii` (RFC 2045 §5.2); a value that names no
 * type/subtype is MALFORMED_MIME.
 *
 * @example
 * parseContentType('multipart/signed; protocol="application/pkcs7-signature"; micalg=sha-256; boundary="b1"');
 * // { type: "multipart", subtype: "signed", mediaType: "multipart/signed", params: { protocol: …, micalg: "sha-256", boundary: "b1" } }
 */
export function parseContentType(value: string): ContentType {
	const known = parsedTypes.get(value);
	if (known) return { ...known, params: { ...known.params } };
	const parsed = parseContentTypeOnce(value);
	// Types repeat from message to message, multipart boundaries never do.
	if (parsed.params.boundary === undefined && parsedTypes.size < 256) parsedTypes.set(value, parsed);
	return { ...parsed, params: { ...parsed.params } };
}

const parsedTypes = new Map<string, ContentType>();

function parseContentTypeOnce(value: string): ContentType {
	if (value.trim() === "") {
		return { type: "text", subtype: "plain", mediaType: "text/plain", params: { charset: "us-ascii" } };
	}
	const parsed = parseHeaderParams(value);
	// RFC 2045 §5.1 allows RFC 822 comments around the type: `text/plain (report)`.
	const segments = (parsed.value.includes("(") ? parsed.value.replace(/\([^()]*\)/g, "") : parsed.value)
		.split("/")
		.map((s) => s.trim());
	const type = segments[segments.length - 2]?.toLowerCase();
	const subtype = segments[segments.length - 1]?.toLowerCase();
	if (type === undefined || subtype === undefined || !TOKEN.test(type) || !TOKEN.test(subtype)) {
		throw new As2Error("MALFORMED_MIME", `unreadable Content-Type: ${JSON.stringify(value.slice(0, 100))}`);
	}
	return { type, subtype, mediaType: `${type}/${subtype}`, params: parsed.params };
}

/**
 * Splits a `value; name=param; …` header (Content-Type, Content-Disposition per RFC 2183,
 * Disposition-Notification-Options and the like) into its leading value and its parameters.
 * Parameter names are lowercased; the first occurrence of a name wins, except that an RFC 2231
 * form (`name*`, `name*0`) is preferred over a plain `name` (RFC 6266 §4.3). Never throws.
 *
 * @example
 * parseHeaderParams("attachment; filename*=UTF-8''%E2%82%AC%20rates.edi").params.filename; // "€ rates.edi"
 */
export function parseHeaderParams(value: string): { value: string; params: Record<string, string> } {
	const raw = splitParams(value);
	const groups = new Map<string, ParamGroup>();
	for (const { name, value: v } of raw.params) {
		// A name without `*` is a plain parameter (RFC 2231 §3): no pattern to match.
		const match = name.includes("*") ? PARAM_NAME.exec(name) : null;
		const base = match?.[1] ?? name;
		let group = groups.get(base);
		if (!group) {
			group = { sections: new Map() };
			groups.set(base, group);
		}
		const section = match?.[2];
		const extended = match?.[3] === "*";
		if (match && section !== undefined) {
			const n = Number(section);
			if (!group.sections.has(n)) group.sections.set(n, { value: v, extended });
		} else if (match && extended) {
			group.extended ??= v;
		} else {
			group.plain ??= v;
		}
	}
	const params: Record<string, string> = {};
	for (const [name, group] of groups) {
		const resolved = resolveGroup(group, TEXT_PARAMS.has(name));
		if (resolved !== undefined) params[name] = resolved;
	}
	return { value: raw.value, params };
}

/**
 * Parameters that name something for people (RFC 2183 `filename`, RFC 2045 `name`). Sent
 * plain, their 8-bit bytes are read as UTF-8 when they are valid UTF-8 and as Latin-1 only
 * otherwise: browsers and curl put raw UTF-8 in a form part's `filename` (RFC 7578 §4.2), and
 * so does OpenAS2 in an AS2 payload's Content-Disposition. Other parameters (boundary, charset,
 * micalg) are tokens and keep their octets.
 */
const TEXT_PARAMS = new Set(["filename", "name"]);

/**
 * `value; name=token; other="quoted string"` on one line (never folded). A parameter whose value
 * is not printable US-ASCII is written in the RFC 2231 §4 form `name*=utf-8''%xx`, since a
 * quoted-string may carry neither 8-bit characters nor line breaks. Undefined params are skipped.
 *
 * @example
 * formatHeaderValue("attachment", { filename: "order 42.x12" }); // 'attachment; filename="order 42.x12"'
 */
export function formatHeaderValue(value: string, params: Record<string, string | undefined>): string {
	let out = value;
	for (const [name, v] of Object.entries(params)) {
		if (v === undefined) continue;
		if (!TOKEN.test(name) || name.includes("*")) throw new TypeError(`invalid parameter name: ${JSON.stringify(name)}`);
		if (!PRINTABLE_ASCII.test(v)) out += `; ${name}*=utf-8''${percentEncode(v)}`;
		else if (TOKEN.test(v)) out += `; ${name}=${v}`;
		else out += `; ${name}="${v.replace(/["\\]/g, "\\$&")}"`;
	}
	return out;
}

interface ParamGroup {
	plain?: string;
	extended?: string;
	sections: Map<number, { value: string; extended: boolean }>;
}

interface RawParam {
	name: string;
	value: string;
}

function splitParams(input: string): { value: string; params: RawParam[] } {
	const s = input;
	let i = s.indexOf(";");
	if (i < 0) return { value: s.trim(), params: [] };
	const value = s.slice(0, i).trim();
	const params: RawParam[] = [];
	// The next '=' is remembered, not searched for after every ';': `x;;;;…` without one
	// would scan the rest of the value each time (quadratic).
	let nextEquals = s.indexOf("=", i);
	while (i < s.length) {
		// at a ';' or at the end of the previous parameter
		i++;
		if (nextEquals >= 0 && nextEquals < i) nextEquals = s.indexOf("=", i);
		const nextSemicolon = s.indexOf(";", i);
		const eq = nextEquals < 0 || (nextSemicolon >= 0 && nextSemicolon < nextEquals) ? nextSemicolon : nextEquals;
		if (eq < 0 || s[eq] === ";") {
			// A parameter without '=' (or an empty one between ';;') carries nothing: skip it.
			i = eq < 0 ? s.length : eq;
			continue;
		}
		const name = s.slice(i, eq).trim().toLowerCase();
		let j = eq + 1;
		while (j < s.length && (s[j] === " " || s[j] === "\t")) j++;
		let v: string;
		if (s[j] === '"') {
			// RFC 5322 §3.2.4 quoted-string with quoted-pairs; an unterminated one runs to the end.
			j++;
			const close = s.indexOf('"', j);
			const backslash = s.indexOf("\\", j);
			if (close >= 0 && (backslash < 0 || backslash > close)) {
				// No quoted-pair: the value is the text between the quotes as it stands.
				v = s.slice(j, close);
				j = close;
			} else {
				let text = "";
				while (j < s.length && s[j] !== '"') {
					if (s[j] === "\\" && j + 1 < s.length) j++;
					text += s[j];
					j++;
				}
				v = text;
			}
			const semi = s.indexOf(";", j);
			i = semi < 0 ? s.length : semi;
		} else {
			// Bare values are read up to the next ';' so that unquoted tspecials (boundary=----=_Part_1)
			// and spaces from careless senders survive.
			const semi = s.indexOf(";", j);
			const end = semi < 0 ? s.length : semi;
			v = s.slice(j, end).trim();
			i = end;
		}
		if (name !== "") params.push({ name, value: v });
	}
	return { value, params };
}

function resolveGroup(group: ParamGroup, text: boolean): string | undefined {
	const plain = (value: string) =>
		text && /[^\0-\x7f]/.test(value) ? decodeCharset(stringBytes(value), undefined) : value;
	if (group.sections.has(0)) {
		// RFC 2231 §3: sections are joined in order from 0; a gap ends the value.
		const segments: { value: string; extended: boolean }[] = [];
		for (let n = 0; group.sections.has(n); n++) segments.push(group.sections.get(n)!);
		if (!segments.some((s) => s.extended)) return plain(segments.map((s) => s.value).join(""));
		// RFC 2231 §4.1: only the first section names the charset; encoded and plain sections mix.
		let charset: string | undefined;
		const bytes: number[] = [];
		segments.forEach((segment, index) => {
			if (!segment.extended) {
				for (const b of stringBytes(segment.value)) bytes.push(b);
				return;
			}
			let text = segment.value;
			if (index === 0) {
				const split = splitCharset(text);
				charset = split.charset;
				text = split.text;
			}
			for (const b of percentDecode(text)) bytes.push(b);
		});
		return decodeCharset(Uint8Array.from(bytes), charset);
	}
	if (group.extended !== undefined) {
		const { charset, text } = splitCharset(group.extended);
		return decodeCharset(percentDecode(text), charset);
	}
	return group.plain === undefined ? undefined : plain(group.plain);
}

/** RFC 2231 §4: `charset'language'value`; a value without the two quotes is taken as is. */
function splitCharset(value: string): { charset: string | undefined; text: string } {
	const first = value.indexOf("'");
	const second = first < 0 ? -1 : value.indexOf("'", first + 1);
	if (second < 0) return { charset: undefined, text: value };
	return { charset: value.slice(0, first).trim().toLowerCase() || undefined, text: value.slice(second + 1) };
}

function percentDecode(text: string): Uint8Array {
	const out: number[] = [];
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (c === 0x25 && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
			out.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
			i += 2;
		} else if (c <= 0xff) {
			out.push(c);
		} else {
			for (const b of Buffer.from(text[i]!, "utf8")) out.push(b);
		}
	}
	return Uint8Array.from(out);
}

function percentEncode(value: string): string {
	let out = "";
	for (const b of Buffer.from(value, "utf8")) {
		const c = String.fromCharCode(b);
		out += ATTRIBUTE_CHAR.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
	}
	return out;
}
