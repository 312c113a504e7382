import { createHash, type Hash, hash, randomBytes as nodeRandomBytes } from "node:crypto";
import { DIGESTS, type DigestAlgorithm } from "../algorithms.ts";

/** An incremental hash; `copy()` forks the state (used to follow two MIC readings at once). */
export interface Digest {
	readonly algorithm: DigestAlgorithm;
	update(chunk: Uint8Array): void;
	digest(): Uint8Array;
	copy(): Digest;
}

class NodeDigest implements Digest {
	constructor(
		readonly algorithm: DigestAlgorithm,
		private readonly hash: Hash = createHash(DIGESTS[algorithm].nodeName),
	) {}
	update(chunk: Uint8Array): void {
		this.hash.update(chunk);
	}
	digest(): Uint8Array {
		const out = this.hash.digest();
		return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
	}
	copy(): Digest {
		return new NodeDigest(this.algorithm, this.hash.copy());
	}
}

export function createDigest(algorithm: DigestAlgorithm): Digest {
	return new NodeDigest(algorithm);
}

/**
 * A digest of bytes held in memory that nobody changes afterwards (a buffered reader's own
 * arrays): they are kept, not hashed, until `digest()`, one call for a single array. A digest
 * that is never asked for (a MIC that another layer's replaces) then costs no hashing at all.
 */
class BufferedDigest implements Digest {
	constructor(
		readonly algorithm: DigestAlgorithm,
		private readonly chunks: Uint8Array[] = [],
	) {}
	update(chunk: Uint8Array): void {
		this.chunks.push(chunk);
	}
	digest(): Uint8Array {
		if (this.chunks.length === 1) return digestBytes(this.algorithm, this.chunks[0]!);
		const whole = createDigest(this.algorithm);
		for (const chunk of this.chunks) whole.update(chunk);
		return whole.digest();
	}
	copy(): Digest {
		return new BufferedDigest(this.algorithm, [...this.chunks]);
	}
}

export function createBufferedDigest(algorithm: DigestAlgorithm): Digest {
	return new BufferedDigest(algorithm);
}

export function digestBytes(algorithm: DigestAlgorithm, bytes: Uint8Array): Uint8Array {
	// One-shot crypto.hash (Node ≥ 20.12) skips the Hash object.
	const out = hash(DIGESTS[algorithm].nodeName, bytes, "buffer");
	return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/**
 * Small requests (IVs, keys, boundaries, message ids: several per message) are served from a
 * pool of CSPRNG output refilled 4 KiB at a time, as Node does for `randomUUID()`: one call
 * into OpenSSL per hundred or so requests instead of one each. Served bytes are wiped from
 * the pool, so it only ever holds bytes not yet handed out.
 */
const POOL_BYTES = 4096;
const MAX_POOLED = 64;
let pool = new Uint8Array(0);
let pooled = 0;

export function randomBytes(n: number): Uint8Array {
	if (n > MAX_POOLED) return new Uint8Array(nodeRandomBytes(n));
	if (pooled + n > pool.byteLength) {
		pool = new Uint8Array(nodeRandomBytes(POOL_BYTES));
		pooled = 0;
	}
	const out = pool.slice(pooled, pooled + n);
	pool.fill(0, pooled, pooled + n);
	pooled += n;
	return out;
}
