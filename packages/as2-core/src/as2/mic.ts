import { DIGESTS, type DigestAlgorithm, parseMicalg } from "../algorithms.ts";
import { fromBase64, toBase64 } from "../bytes/index.ts";

/** A Received-Content-MIC (RFC 4130 §7.3.1): base64 digest and the algorithm that made it. */
export interface Mic {
	value: string;
	algorithm: DigestAlgorithm;
}

/** `Received-Content-MIC` field value with the RFC 5751 algorithm name: `<base64>, sha-256`. */
export function formatMic(mic: Mic): string {
	return `${mic.value}, ${DIGESTS[mic.algorithm].micalg}`;
}

export function micFromDigest(digest: Uint8Array, algorithm: DigestAlgorithm): Mic {
	return { value: toBase64(digest), algorithm };
}

/**
 * Reads `<base64>, <alg>` tolerantly: no space after the comma (as2-anchors §D7), any micalg
 * spelling, white space inside the base64. Undefined when unreadable.
 */
export function parseMic(text: string | undefined): Mic | undefined {
	if (!text) return undefined;
	const comma = text.lastIndexOf(",");
	if (comma < 0) return undefined;
	const algorithm = parseMicalg(text.slice(comma + 1));
	const value = text.slice(0, comma).replace(/\s+/g, "");
	if (!algorithm || !/^[A-Za-z0-9+/]+=*$/.test(value)) return undefined;
	return { value, algorithm };
}

/** Same algorithm and same digest bytes (base64 padding and spacing differences ignored). */
export function micEquals(a: Mic | undefined, b: Mic | undefined): boolean {
	if (!a || !b || a.algorithm !== b.algorithm) return false;
	return Buffer.compare(Buffer.from(fromBase64(a.value)), Buffer.from(fromBase64(b.value))) === 0;
}
