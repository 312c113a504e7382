import type { DigestAlgorithm } from "../algorithms.ts";
import { createDigest, type Digest } from "../crypto/index.ts";

/**
 * The bytes a multipart/signed signature verified over: the first part as received, with bare
 * LF made CRLF (the canonical form, RFC 5751 §3.1.1), or with CRLF made LF.
 */
export type SignatureVariant = "as_received" | "crlf" | "lf";

const CR = 0x0d;
const LF = 0x0a;
const CR_ONLY = Uint8Array.of(CR);

type Digests = Map<DigestAlgorithm, Digest>;

/**
 * Hashes the first part of a multipart/signed as received and, alongside, in the two forms a
 * gateway may have turned it from: some sign one line-ending form and deliver the other
 * (mendelson and IBM Sterling captures, phase2#12, pyas2-lib PR #8; as2-anchors §C.3, §D1; issue #17). A variant's
 * digests are forked (Digest.copy) only where it first differs from what was received, so a
 * part without a bare LF costs nothing more, and only text is followed in LF form (in binary
 * content CR LF is data). Memory stays a chunk: nothing is buffered.
 */
export class LineEndingDigests {
	private crlf: Digests | undefined;
	private lf: Digests | undefined;
	private followLf = true;
	/** A CR that ended the last chunk, held back until the next byte tells whether an LF follows. */
	private pendingCr = false;
	/** A part given whole, whose variants are hashed only when asked for. */
	private whole: Uint8Array | undefined;

	constructor(readonly asReceived: Digests) {}

	update(chunk: Uint8Array): void {
		if (chunk.byteLength === 0) return;
		let bytes = chunk;
		if (this.pendingCr) {
			bytes = new Uint8Array(chunk.byteLength + 1);
			bytes[0] = CR;
			bytes.set(chunk, 1);
			this.pendingCr = false;
		}
		if (bytes[bytes.byteLength - 1] === CR) {
			this.pendingCr = true;
			bytes = bytes.subarray(0, -1);
		}
		this.feed(bytes);
	}

	/**
	 * The whole part at once (the buffered reader): hashed as received now, and in the other
	 * forms only if {@link repairs} is asked for them, that is when the part as received does
	 * not verify. Most parts verify as received: their variants are never hashed. The part
	 * must not change until then.
	 */
	updateWhole(part: Uint8Array): void {
		this.whole = part;
		updateAll(this.asReceived, part);
	}

	/** Called once the part has been read: flushes a CR held back. */
	end(): void {
		if (!this.pendingCr) return;
		this.pendingCr = false;
		this.feed(CR_ONLY);
	}

	/** The part's Content-Type is known: the LF form is tried for text only. */
	setText(text: boolean): void {
		if (text) return;
		this.followLf = false;
		this.lf = undefined;
	}

	/** The variants to try after the bytes as received, each with its digests; a form identical to them is left out. */
	repairs(): Array<{ variant: SignatureVariant; digests: Digests }> {
		if (this.whole) {
			const variants = new LineEndingDigests(
				new Map([...this.asReceived.keys()].map((algorithm) => [algorithm, createDigest(algorithm)] as const)),
			);
			variants.setText(this.followLf);
			variants.update(this.whole);
			variants.end();
			return variants.repairs();
		}
		const out: Array<{ variant: SignatureVariant; digests: Digests }> = [];
		if (this.crlf) out.push({ variant: "crlf", digests: this.crlf });
		if (this.lf) out.push({ variant: "lf", digests: this.lf });
		return out;
	}

	/**
	 * `bytes` never ends with a CR (held back by update), so an LF at its start follows a byte
	 * that is not a CR: a bare LF.
	 */
	private feed(chunk: Uint8Array): void {
		// A Buffer view: its indexOf is a native memchr, a typed array's walks in JavaScript.
		const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
		if (this.crlf) {
			toCrlf(this.crlf, bytes, 0);
		} else {
			const at = firstBareLf(bytes);
			if (at >= 0) {
				this.crlf = fork(this.asReceived);
				updateAll(this.crlf, bytes.subarray(0, at));
				toCrlf(this.crlf, bytes, at);
			}
		}
		if (this.lf) {
			toLf(this.lf, bytes, 0);
		} else if (this.followLf) {
			const at = firstCrLf(bytes);
			if (at >= 0) {
				this.lf = fork(this.asReceived);
				updateAll(this.lf, bytes.subarray(0, at));
				toLf(this.lf, bytes, at);
			}
		}
		updateAll(this.asReceived, bytes);
	}
}

function fork(digests: Digests): Digests {
	return new Map([...digests].map(([algorithm, digest]) => [algorithm, digest.copy()] as const));
}

function updateAll(digests: Digests, bytes: Uint8Array): void {
	if (bytes.byteLength === 0) return;
	for (const digest of digests.values()) digest.update(bytes);
}

function firstBareLf(bytes: Uint8Array): number {
	for (let i = bytes.indexOf(LF); i >= 0; i = bytes.indexOf(LF, i + 1)) if (i === 0 || bytes[i - 1] !== CR) return i;
	return -1;
}

/** Where the first CR LF pair starts. */
function firstCrLf(bytes: Uint8Array): number {
	for (let i = bytes.indexOf(LF, 1); i >= 0; i = bytes.indexOf(LF, i + 1)) if (bytes[i - 1] === CR) return i - 1;
	return -1;
}

/**
 * Reused output of the two rewrites: one update per chunk rather than one per line (a digest
 * update costs far more than copying a line). Digests copy what they are given.
 */
const SCRATCH_BYTES = 256 * 1024;
const scratch = new Uint8Array(SCRATCH_BYTES);

/** A large chunk (the buffered reader hashes a whole part at once) gets its own, not kept, buffer. */
function scratchOf(size: number): Uint8Array {
	return size <= SCRATCH_BYTES ? scratch : new Uint8Array(size);
}

/** Hashes `bytes` from `from` with each bare LF as CR LF. */
function toCrlf(digests: Digests, bytes: Uint8Array, from: number): void {
	const out = scratchOf(2 * (bytes.byteLength - from));
	let o = 0;
	let start = from;
	for (let i = bytes.indexOf(LF, from); i >= 0; i = bytes.indexOf(LF, i + 1)) {
		if (i > 0 && bytes[i - 1] === CR) continue;
		out.set(bytes.subarray(start, i), o);
		o += i - start;
		out[o++] = CR;
		start = i;
	}
	out.set(bytes.subarray(start), o);
	o += bytes.byteLength - start;
	updateAll(digests, out.subarray(0, o));
}

/** Hashes `bytes` from `from` with each CR LF as LF. */
function toLf(digests: Digests, bytes: Uint8Array, from: number): void {
	const out = scratchOf(bytes.byteLength - from);
	let o = 0;
	let start = from;
	for (let i = bytes.indexOf(LF, from + 1); i >= 0; i = bytes.indexOf(LF, i + 1)) {
		if (bytes[i - 1] !== CR) continue;
		out.set(bytes.subarray(start, i - 1), o);
		o += i - 1 - start;
		start = i;
	}
	out.set(bytes.subarray(start), o);
	o += bytes.byteLength - start;
	updateAll(digests, out.subarray(0, o));
}
