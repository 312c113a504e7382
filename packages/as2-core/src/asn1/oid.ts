import { fromLatin1 } from "../bytes/index.ts";
import { As2Error } from "../errors/index.ts";

/**
 * OBJECT IDENTIFIER content octets (X.690 §8.19): the first two arcs share one subidentifier
 * (40·X + Y), every subidentifier is base-128 with the high bit marking continuation.
 */
export function encodeOid(oid: string): Uint8Array {
	const arcs = oid.split(".").map((arc) => {
		if (!/^\d+$/.test(arc)) throw new TypeError(`invalid OID "${oid}"`);
		return BigInt(arc);
	});
	const [first, second, ...rest] = arcs;
	if (first === undefined || second === undefined || first > 2n || (first < 2n && second >= 40n)) {
		throw new TypeError(`invalid OID "${oid}"`);
	}
	const out: number[] = [];
	for (const sub of [first * 40n + second, ...rest]) {
		const groups: number[] = [];
		let v = sub;
		do {
			groups.unshift(Number(v & 0x7fn));
			v >>= 7n;
		} while (v > 0n);
		for (let i = 0; i < groups.length - 1; i++) groups[i]! |= 0x80;
		out.push(...groups);
	}
	return new Uint8Array(out);
}

/** Dotted form of OID content octets; MALFORMED_CMS when they are not a valid encoding. */
export function decodeOid(content: Uint8Array): string {
	if (content.byteLength > 32) return decodeSmallOid(content) ?? decodeAnyOid(content);
	const key = fromLatin1(content);
	let oid = decodedOids.get(key);
	if (oid === undefined) {
		oid = decodeSmallOid(content) ?? decodeAnyOid(content);
		if (decodedOids.size < 4096) decodedOids.set(key, oid);
	}
	return oid;
}

/** Decoded OIDs by their content octets: a message repeats the same few dozen. */
const decodedOids = new Map<string, string>();

/**
 * The common case in plain numbers: a valid encoding whose subidentifiers stay below 2^31
 * (every OID CMS uses). Undefined otherwise, for {@link decodeAnyOid} to decide.
 */
function decodeSmallOid(content: Uint8Array): string | undefined {
	if (content.byteLength === 0 || content.byteLength > 256) return undefined;
	let text = "";
	let v = 0;
	let started = false;
	for (let i = 0; i < content.byteLength; i++) {
		const byte = content[i]!;
		if ((!started && byte === 0x80) || v > 0xffffff) return undefined;
		v = v * 128 + (byte & 0x7f);
		started = true;
		if ((byte & 0x80) === 0) {
			if (text === "") {
				const first = v < 40 ? 0 : v < 80 ? 1 : 2;
				text = `${first}.${v - first * 40}`;
			} else {
				text += `.${v}`;
			}
			v = 0;
			started = false;
		}
	}
	return started ? undefined : text;
}

function decodeAnyOid(content: Uint8Array): string {
	const malformed = () => new As2Error("MALFORMED_CMS", "invalid OBJECT IDENTIFIER encoding");
	if (content.byteLength === 0 || content.byteLength > 256) throw malformed();
	const subs: bigint[] = [];
	let v = 0n;
	let started = false;
	for (const byte of content) {
		// X.690 §8.19.2: a subidentifier never starts with 0x80 (no leading zero groups).
		if (!started && byte === 0x80) throw malformed();
		v = (v << 7n) | BigInt(byte & 0x7f);
		started = true;
		if ((byte & 0x80) === 0) {
			subs.push(v);
			v = 0n;
			started = false;
		}
	}
	if (started) throw malformed();
	const head = subs[0]!;
	const first = head < 40n ? 0n : head < 80n ? 1n : 2n;
	return [first, head - first * 40n, ...subs.slice(1)].join(".");
}
