import type { ByteSource, Chunks } from "../bytes/index.ts";

const CR = 0x0d;
const LF = 0x0a;
const LF_ONLY = Uint8Array.of(LF);

/**
 * Rewrites line ends to CRLF: bare LF and bare CR become CRLF, CRLF stays (RFC 5751 §3.1.1,
 * RFC 2046 §4.1.1: text is signed in canonical form, so the MIC a receiver computes over the
 * CRLF form matches ours). Chunks that are already canonical pass through without a copy; a
 * CR at the end of one chunk and an LF at the start of the next count as one CRLF.
 *
 * @example
 * const canonical = canonicalizeLineEndings(payload.open());
 */
export async function* canonicalizeLineEndings(body: Chunks): Chunks {
	let previousCr = false;
	for await (const chunk of body) {
		if (chunk.byteLength === 0) continue;
		const inserts = findInserts(chunk, previousCr);
		previousCr = chunk[chunk.byteLength - 1] === CR;
		if (inserts.length === 0) {
			yield chunk;
			continue;
		}
		const out = new Uint8Array(chunk.byteLength + inserts.length);
		let from = 0;
		let o = 0;
		for (const code of inserts) {
			const at = Math.floor(code / 2);
			out.set(chunk.subarray(from, at), o);
			o += at - from;
			out[o++] = code % 2 === 1 ? LF : CR;
			from = at;
		}
		out.set(chunk.subarray(from), o);
		yield out;
	}
	if (previousCr) yield LF_ONLY;
}

/** {@link canonicalizeLineEndings} of bytes held in memory, in one step (the same bytes). */
export function canonicalizeBytes(bytes: Uint8Array): Uint8Array {
	if (bytes.byteLength === 0) return bytes;
	const inserts = findInserts(bytes, false);
	const trailingCr = bytes[bytes.byteLength - 1] === CR;
	if (inserts.length === 0 && !trailingCr) return bytes;
	const out = new Uint8Array(bytes.byteLength + inserts.length + (trailingCr ? 1 : 0));
	let from = 0;
	let o = 0;
	for (const code of inserts) {
		const at = Math.floor(code / 2);
		out.set(bytes.subarray(from, at), o);
		o += at - from;
		out[o++] = code % 2 === 1 ? LF : CR;
		from = at;
	}
	out.set(bytes.subarray(from), o);
	if (trailingCr) out[out.byteLength - 1] = LF;
	return out;
}

/**
 * Exact size of `canonicalizeLineEndings(source.open())`, from a counting pass, for lengths
 * written ahead of the data.
 */
export async function canonicalSize(source: ByteSource): Promise<number> {
	let size = 0;
	let previousCr = false;
	for await (const chunk of source.open()) {
		if (chunk.byteLength === 0) continue;
		size += chunk.byteLength + findInserts(chunk, previousCr).length;
		previousCr = chunk[chunk.byteLength - 1] === CR;
	}
	return previousCr ? size + 1 : size;
}

/** True for `text/*` (RFC 2046 §4.1), the media types canonicalized before signing. */
export function isTextMediaType(mediaType: string): boolean {
	return /^\s*text\s*\//i.test(mediaType);
}

/**
 * Where bytes must be inserted: each entry is `2 * offset + 1` for an LF, `2 * offset` for a
 * CR, inserted before `offset`. Walks line ends with native searches, so long lines and binary
 * data cost little; a trailing CR is settled by the next chunk.
 */
function findInserts(chunk: Uint8Array, previousCr: boolean): number[] {
	const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
	const n = buf.byteLength;
	const inserts: number[] = [];
	if (previousCr && buf[0] !== LF) inserts.push(1);
	let cr = buf.indexOf(CR);
	let lf = buf.indexOf(LF);
	while (cr >= 0 || lf >= 0) {
		if (cr >= 0 && (lf < 0 || cr < lf)) {
			if (cr + 1 < n) {
				// A CR before `lf` that is followed by an LF is directly before `lf`.
				if (buf[cr + 1] === LF) lf = buf.indexOf(LF, cr + 2);
				else inserts.push((cr + 1) * 2 + 1);
			}
			cr = buf.indexOf(CR, cr + 1);
		} else {
			if (lf === 0 ? !previousCr : buf[lf - 1] !== CR) inserts.push(lf * 2);
			lf = buf.indexOf(LF, lf + 1);
		}
	}
	return inserts;
}
