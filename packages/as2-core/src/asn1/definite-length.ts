import { concatBytes } from "../bytes/index.ts";
import { As2Error } from "../errors/index.ts";
import { decodeHeader } from "./ber-header.ts";
import { derLength, TAG } from "./der.ts";

const MAX_DEPTH = 32;

const malformed = (message: string) => new As2Error("MALFORMED_CMS", message);

/**
 * Rewrites a small, fully buffered BER element with definite, minimal lengths and with
 * constructed OCTET STRINGs joined into primitive ones (X.690 §8.7.3 allows both; §10.1 and
 * §10.2 forbid them in DER). Senders that stream (`openssl cms -stream`, several AS2
 * products) use indefinite lengths everywhere; schema parsers and equality checks want the
 * DER shape. SET OF ordering is left as received.
 */
export function toDefiniteLength(ber: Uint8Array): Uint8Array {
	const { encoded, end } = rewrite(ber, 0, 0);
	if (end !== ber.byteLength) throw malformed("trailing bytes after element");
	return encoded;
}

function rewrite(bytes: Uint8Array, offset: number, depth: number): { encoded: Uint8Array; end: number } {
	if (depth > MAX_DEPTH) throw malformed("ASN.1 nesting too deep");
	const header = decodeHeader(bytes, offset);
	if (!header) throw malformed("truncated element");
	const identifier = bytes.subarray(offset, offset + identifierLength(bytes, offset));
	let pos = offset + header.headerLength;
	if (!header.constructed) {
		const end = pos + header.length!;
		if (end > bytes.byteLength) throw malformed("truncated element");
		return { encoded: concatBytes([identifier, derLength(header.length!), bytes.subarray(pos, end)]), end };
	}
	const children: Uint8Array[] = [];
	const limit = header.length === undefined ? undefined : pos + header.length;
	if (limit !== undefined && limit > bytes.byteLength) throw malformed("truncated element");
	for (;;) {
		if (limit !== undefined) {
			if (pos === limit) break;
			if (pos > limit) throw malformed("element runs past its container");
		} else {
			if (pos + 2 > bytes.byteLength) throw malformed("missing end-of-contents");
			if (bytes[pos] === 0 && bytes[pos + 1] === 0) {
				pos += 2;
				break;
			}
		}
		const child = rewrite(bytes, pos, depth + 1);
		children.push(child.encoded);
		pos = child.end;
	}
	if (header.tag === (TAG.OCTET_STRING | 0x20)) {
		// X.690 §8.7.3.2: the segments are OCTET STRINGs; their contents concatenate.
		const parts = children.map((child) => {
			if (child[0] !== TAG.OCTET_STRING) throw malformed("constructed OCTET STRING segment is not an OCTET STRING");
			const h = decodeHeader(child)!;
			return child.subarray(h.headerLength);
		});
		const content = concatBytes(parts);
		return {
			encoded: concatBytes([Uint8Array.of(TAG.OCTET_STRING), derLength(content.byteLength), content]),
			end: pos,
		};
	}
	const content = concatBytes(children);
	return { encoded: concatBytes([identifier, derLength(content.byteLength), content]), end: pos };
}

function identifierLength(bytes: Uint8Array, offset: number): number {
	if ((bytes[offset]! & 0x1f) !== 0x1f) return 1;
	let n = 1;
	while ((bytes[offset + n]! & 0x80) !== 0) n++;
	return n + 1;
}
