import { createHash, type Hash, randomBytes as nodeRandomBytes } from "node:crypto";
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
		return new Uint8Array(this.hash.digest());
	}
	copy(): Digest {
		return new NodeDigest(this.algorithm, this.hash.copy());
	}
}

export function createDigest(algorithm: DigestAlgorithm): Digest {
	return new NodeDigest(algorithm);
}

export function digestBytes(algorithm: DigestAlgorithm, bytes: Uint8Array): Uint8Array {
	return new Uint8Array(createHash(DIGESTS[algorithm].nodeName).update(bytes).digest());
}

export function randomBytes(n: number): Uint8Array {
	return new Uint8Array(nodeRandomBytes(n));
}
