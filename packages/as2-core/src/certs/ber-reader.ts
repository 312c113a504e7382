import { type BerHeaderFields, decodeHeaderInto, MAX_BER_DEPTH } from "../asn1/ber-header.ts";
import { concatBytes, fromLatin1 } from "../bytes/index.ts";

/**
 * A minimal in-memory BER TLV reader (X.690 §8) for hot paths: certificates, SignedData,
 * PKCS#12 and the buffered CMS readers of small messages. It records offsets into the input
 * instead of building objects, so a caller can keep the ORIGINAL bytes of a field (RFC 5652
 * §5.4 signs the signed attributes as received). Indefinite lengths (X.690 §8.1.3.6) are
 * accepted: Java and Windows senders stream BER. Headers are decoded, and nesting limited,
 * by the same rules as the streaming reader (`asn1/`), so both accept the same encodings.
 * Every failure is a `BerError`; callers translate it to their own error code.
 */
export class BerError extends Error {
	override readonly name = "BerError";
}

/** Tag classes (X.690 §8.1.2.2). */
export const UNIVERSAL = 0;
export const CONTEXT = 2;

/** Universal tag numbers used in as2kit (X.680 §8.4). */
export const TAG = {
	BOOLEAN: 1,
	INTEGER: 2,
	BIT_STRING: 3,
	OCTET_STRING: 4,
	NULL: 5,
	OID: 6,
	UTF8_STRING: 12,
	SEQUENCE: 16,
	SET: 17,
	PRINTABLE_STRING: 19,
	T61_STRING: 20,
	IA5_STRING: 22,
	UTC_TIME: 23,
	GENERALIZED_TIME: 24,
	UNIVERSAL_STRING: 28,
	BMP_STRING: 30,
} as const;

export interface Tlv {
	/** Tag class: 0 universal, 1 application, 2 context-specific, 3 private. */
	readonly cls: number;
	readonly constructed: boolean;
	readonly number: number;
	/** Offset of the identifier octet. */
	readonly start: number;
	readonly contentStart: number;
	/** End of the contents (before the end-of-contents octets when indefinite). */
	readonly contentEnd: number;
	/** End of the whole element (after the end-of-contents octets when indefinite). */
	readonly end: number;
	readonly indefinite: boolean;
	/** Number of elements enclosing this one (0 for a root). */
	readonly depth: number;
}

/** The header of the element being read: its fields are copied out at once (no object per element). */
const scratchHeader: BerHeaderFields = {
	tag: 0,
	tagClass: 0,
	tagNumber: 0,
	constructed: false,
	length: 0,
	headerLength: 0,
};

/**
 * Reads the element at `offset`, which must end at or before `limit`; `depth` is the number
 * of elements around it. Like the streaming reader, an element nested in more than
 * {@link MAX_BER_DEPTH} others is refused, and so is walking an indefinite-length one at that depth.
 */
export function readTlv(bytes: Uint8Array, offset = 0, limit = bytes.byteLength, depth = 0): Tlv {
	if (depth > MAX_BER_DEPTH) throw new BerError("BER nesting too deep");
	if (offset >= limit) throw new BerError(`BER: no element at offset ${offset}`);
	const header = scratchHeader;
	let whole: boolean;
	try {
		whole = decodeHeaderInto(bytes, offset, header);
	} catch (error) {
		throw new BerError(`BER: ${(error as Error).message}`);
	}
	if (!whole || offset + header.headerLength > limit) throw new BerError(`BER: truncated header at offset ${offset}`);
	// Read out before the recursion below reuses the scratch header.
	const cls = header.tagClass;
	const constructed = header.constructed;
	const number = header.tagNumber;
	const length = header.length;
	let p = offset + header.headerLength;
	if (length === undefined) {
		if (depth >= MAX_BER_DEPTH) throw new BerError("BER nesting too deep");
		const contentStart = p;
		for (;;) {
			if (p + 2 > limit) throw new BerError("BER: missing end-of-contents");
			if (bytes[p] === 0 && bytes[p + 1] === 0) break;
			p = readTlv(bytes, p, limit, depth + 1).end;
		}
		const end = p + 2;
		return { cls, constructed, number, start: offset, contentStart, contentEnd: p, end, indefinite: true, depth };
	}
	const end = p + length;
	if (end > limit) throw new BerError(`BER: element at ${offset} runs past its container (${end} > ${limit})`);
	return { cls, constructed, number, start: offset, contentStart: p, contentEnd: end, end, indefinite: false, depth };
}

/** Reads one element that must span the whole input (trailing bytes are an error). */
export function readRoot(bytes: Uint8Array): Tlv {
	const root = readTlv(bytes, 0);
	if (root.end !== bytes.byteLength) throw new BerError(`BER: ${bytes.byteLength - root.end} trailing bytes`);
	return root;
}

/** The elements inside a constructed element. */
export function childrenOf(bytes: Uint8Array, tlv: Tlv): Tlv[] {
	if (!tlv.constructed) throw new BerError("BER: expected a constructed element");
	const out: Tlv[] = [];
	for (let p = tlv.contentStart; p < tlv.contentEnd; ) {
		const child = readTlv(bytes, p, tlv.contentEnd, tlv.depth + 1);
		out.push(child);
		p = child.end;
	}
	return out;
}

export function is(tlv: Tlv | undefined, cls: number, number: number): tlv is Tlv {
	return tlv !== undefined && tlv.cls === cls && tlv.number === number;
}

/** Asserts the tag of an element (universal class unless `cls` is given). */
export function expectTag(tlv: Tlv | undefined, number: number, what: string, cls = UNIVERSAL): Tlv {
	if (!is(tlv, cls, number)) throw new BerError(`BER: ${what} missing or of the wrong type`);
	return tlv;
}

/** The whole encoding of an element, header included. */
export function encodingOf(bytes: Uint8Array, tlv: Tlv): Uint8Array {
	return bytes.subarray(tlv.start, tlv.end);
}

/** The contents octets of a primitive element. */
export function contentOf(bytes: Uint8Array, tlv: Tlv): Uint8Array {
	if (tlv.constructed) throw new BerError("BER: expected a primitive element");
	return bytes.subarray(tlv.contentStart, tlv.contentEnd);
}

/**
 * The value of an OCTET STRING (or any string type), joining the segments of the
 * constructed form (X.690 §8.7.3) that BER senders use for streamed content.
 */
export function octetsOf(bytes: Uint8Array, tlv: Tlv): Uint8Array {
	if (!tlv.constructed) return bytes.subarray(tlv.contentStart, tlv.contentEnd);
	const parts: Uint8Array[] = [];
	collectSegments(bytes, tlv, parts);
	return parts.length === 1 ? parts[0]! : concatBytes(parts);
}

function collectSegments(bytes: Uint8Array, tlv: Tlv, parts: Uint8Array[]): void {
	for (const child of childrenOf(bytes, tlv)) {
		if (child.constructed) collectSegments(bytes, child, parts);
		else parts.push(bytes.subarray(child.contentStart, child.contentEnd));
	}
}

/** Dotted form of an OBJECT IDENTIFIER (X.690 §8.19). */
export function oidOf(bytes: Uint8Array, tlv: Tlv): string {
	if (tlv.cls !== UNIVERSAL || tlv.number !== TAG.OID) throw new BerError("BER: expected an OBJECT IDENTIFIER");
	return decodeOid(contentOf(bytes, tlv));
}

/** Decoded OIDs by their content octets: a message repeats the same few dozen. */
const decodedOids = new Map<string, string>();

export function decodeOid(content: Uint8Array): string {
	if (content.byteLength > 32) return decodeOidOnce(content);
	const key = fromLatin1(content);
	let oid = decodedOids.get(key);
	if (oid === undefined) {
		oid = decodeOidOnce(content);
		if (decodedOids.size < 4096) decodedOids.set(key, oid);
	}
	return oid;
}

function decodeOidOnce(content: Uint8Array): string {
	if (content.byteLength === 0 || (content[content.byteLength - 1]! & 0x80) !== 0) {
		throw new BerError("BER: malformed OBJECT IDENTIFIER");
	}
	const arcs: number[] = [];
	let value = 0;
	for (const b of content) {
		value = value * 128 + (b & 0x7f);
		if (value > Number.MAX_SAFE_INTEGER / 128) throw new BerError("BER: OBJECT IDENTIFIER arc too large");
		if ((b & 0x80) === 0) {
			if (arcs.length === 0) {
				const first = value < 80 ? Math.floor(value / 40) : 2;
				arcs.push(first, value - first * 40);
			} else {
				arcs.push(value);
			}
			value = 0;
		}
	}
	return arcs.join(".");
}

/** A small non-negative INTEGER (versions, iteration counts, salt lengths). */
export function smallIntegerOf(bytes: Uint8Array, tlv: Tlv): number {
	if (tlv.cls !== UNIVERSAL || tlv.number !== TAG.INTEGER) throw new BerError("BER: expected an INTEGER");
	const content = contentOf(bytes, tlv);
	if (content.byteLength === 0 || content.byteLength > 6 || (content[0]! & 0x80) !== 0) {
		throw new BerError("BER: INTEGER out of range");
	}
	let n = 0;
	for (const b of content) n = n * 256 + b;
	return n;
}

/**
 * UTCTime or GeneralizedTime (X.680 §46-47, RFC 5280 §4.1.2.5). BER allows omitted seconds,
 * fractions and offsets; DER senders use `YYMMDDHHMMSSZ` / `YYYYMMDDHHMMSSZ`.
 */
export function timeOf(bytes: Uint8Array, tlv: Tlv): Date {
	if (tlv.cls !== UNIVERSAL || (tlv.number !== TAG.UTC_TIME && tlv.number !== TAG.GENERALIZED_TIME)) {
		throw new BerError("BER: expected a UTCTime or GeneralizedTime");
	}
	const text = String.fromCharCode(...contentOf(bytes, tlv));
	const m =
		tlv.number === TAG.UTC_TIME
			? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?(Z|[+-]\d{4})$/.exec(text)
			: /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})?(\d{2})?(?:[.,](\d+))?(Z|[+-]\d{4})?$/.exec(text);
	if (!m) throw new BerError(`BER: malformed time "${text}"`);
	let year = Number(m[1]);
	// RFC 5280 §4.1.2.5.1: two-digit years 50-99 are 19xx, 00-49 are 20xx.
	if (tlv.number === TAG.UTC_TIME) year += year >= 50 ? 1900 : 2000;
	const fraction = tlv.number === TAG.GENERALIZED_TIME && m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
	const zone = (tlv.number === TAG.UTC_TIME ? m[7] : m[8]) ?? "Z";
	let ms = Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5] ?? 0), Number(m[6] ?? 0));
	if (zone !== "Z") {
		const sign = zone[0] === "-" ? -1 : 1;
		ms -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3, 5))) * 60_000;
	}
	const date = new Date(ms + fraction);
	if (Number.isNaN(date.getTime())) throw new BerError(`BER: invalid time "${text}"`);
	return date;
}
