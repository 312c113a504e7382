import { As2Error } from "../errors/index.ts";

/** Tag classes (X.690 §8.1.2.2). */
export const TAG_CLASS = { UNIVERSAL: 0, APPLICATION: 1, CONTEXT: 2, PRIVATE: 3 } as const;

/** The identifier and length octets of one BER element (X.690 §8.1.2, §8.1.3). */
export interface BerHeader {
	/** First identifier octet: class bits, constructed bit and (below 31) the tag number. */
	readonly tag: number;
	readonly tagClass: number;
	readonly tagNumber: number;
	readonly constructed: boolean;
	/** Content length; `undefined` is the indefinite form (X.690 §8.1.3.6), ended by 00 00. */
	readonly length: number | undefined;
	/** Identifier plus length octets. */
	readonly headerLength: number;
}

/**
 * Nesting we follow before calling the input hostile (real CMS stays below 12): the elements
 * enclosing one that is entered. Both BER readers (streaming and in-memory) apply it.
 */
export const MAX_BER_DEPTH = 48;

/** Longest header we accept: 1 + 4 identifier octets, 1 + 8 length octets. */
export const MAX_HEADER_LENGTH = 14;

const malformed = (message: string) => new As2Error("MALFORMED_CMS", message);

/**
 * Decodes a header at `offset`; `undefined` when `bytes` ends before the header does.
 * Throws MALFORMED_CMS for encodings no sender may use (reserved length octet, indefinite
 * length on a primitive, lengths past 2^53).
 */
export function decodeHeader(bytes: Uint8Array, offset = 0): BerHeader | undefined {
	const header: BerHeaderFields = { tag: 0, tagClass: 0, tagNumber: 0, constructed: false, length: 0, headerLength: 0 };
	return decodeHeaderInto(bytes, offset, header) ? header : undefined;
}

/** The fields of a {@link BerHeader}, written by {@link decodeHeaderInto}. */
export type BerHeaderFields = { -readonly [K in keyof BerHeader]: BerHeader[K] };

/**
 * {@link decodeHeader} into `into` instead of a new object; false when `bytes` ends before the
 * header does (`into` is then left as it was). For readers that decode an element at a time
 * and keep only offsets: one object per element less to allocate and collect (issue #20).
 */
export function decodeHeaderInto(bytes: Uint8Array, offset: number, into: BerHeaderFields): boolean {
	let i = offset;
	if (i >= bytes.byteLength) return false;
	const tag = bytes[i++]!;
	const tagClass = tag >> 6;
	const constructed = (tag & 0x20) !== 0;
	let tagNumber = tag & 0x1f;
	if (tagNumber === 0x1f) {
		// X.690 §8.1.2.4: high tag numbers, base 128; we accept up to four octets.
		tagNumber = 0;
		for (let n = 0; ; n++) {
			if (i >= bytes.byteLength) return false;
			const b = bytes[i++]!;
			if (n === 0 && b === 0x80) throw malformed("non-minimal tag number");
			if (n === 4) throw malformed("tag number too large");
			tagNumber = tagNumber * 128 + (b & 0x7f);
			if ((b & 0x80) === 0) break;
		}
	}
	if (i >= bytes.byteLength) return false;
	const first = bytes[i++]!;
	let length: number | undefined;
	if (first < 0x80) {
		length = first;
	} else if (first === 0x80) {
		if (!constructed) throw malformed("indefinite length on a primitive element");
		length = undefined;
	} else if (first === 0xff) {
		throw malformed("reserved length octet 0xff");
	} else {
		const count = first & 0x7f;
		if (count > 8) throw malformed(`length of ${count} octets`);
		if (i + count > bytes.byteLength) return false;
		let v = 0;
		for (let k = 0; k < count; k++) v = v * 256 + bytes[i++]!;
		if (!Number.isSafeInteger(v)) throw malformed("length too large");
		length = v;
	}
	into.tag = tag;
	into.tagClass = tagClass;
	into.tagNumber = tagNumber;
	into.constructed = constructed;
	into.length = length;
	into.headerLength = i - offset;
	return true;
}

/** Whether a header is the universal/context tag `tag` regardless of the constructed bit. */
export function isTag(header: BerHeader, tag: number): boolean {
	return (header.tag | 0x20) === (tag | 0x20) && header.tagNumber === (tag & 0x1f);
}
