import { type CipherGCMTypes, createCipheriv, createDecipheriv, getCiphers } from "node:crypto";
import type { Chunks } from "../bytes/index.ts";

/** What the content cipher is fed per call: big enough to amortise the call, small enough to stream. */
export const CIPHER_CHUNK_SIZE = 64 * 1024;

/** A symmetric cipher in streaming use (CBC or GCM through OpenSSL). */
export interface StreamCipher {
	update(chunk: Uint8Array): Uint8Array;
	/** Last block (CBC: padding added or checked; GCM: tag computed or verified). Throws on failure. */
	final(): Uint8Array;
}

export interface ContentEncryptor extends StreamCipher {
	/** GCM only, after `final()`. */
	authTag(): Uint8Array;
}

export interface ContentDecryptor extends StreamCipher {
	/** GCM only, before `final()`. */
	setAuthTag(tag: Uint8Array): void;
}

export interface CipherOptions {
	/** AEAD tag length in bytes (RFC 5084 §3.1 allows 12 to 16). */
	authTagLength?: number;
}

/**
 * `nodeName` is an OpenSSL cipher name (`aes-128-cbc`, `des-ede3-cbc`, `aes-256-gcm`, …).
 * CBC ciphers apply PKCS#7 padding (RFC 5652 §6.3); with `authTagLength` the cipher is GCM.
 */
export function createEncryptor(
	nodeName: string,
	key: Uint8Array,
	iv: Uint8Array,
	options: CipherOptions = {},
): ContentEncryptor {
	if (options.authTagLength !== undefined) {
		const gcm = createCipheriv(nodeName as CipherGCMTypes, key, iv, { authTagLength: options.authTagLength });
		return { update: (chunk) => gcm.update(chunk), final: () => gcm.final(), authTag: () => gcm.getAuthTag() };
	}
	const cbc = createCipheriv(nodeName, key, iv);
	return {
		update: (chunk) => cbc.update(chunk),
		final: () => cbc.final(),
		authTag: () => {
			throw new Error(`${nodeName} has no authentication tag`);
		},
	};
}

export function createDecryptor(
	nodeName: string,
	key: Uint8Array,
	iv: Uint8Array,
	options: CipherOptions = {},
): ContentDecryptor {
	if (options.authTagLength !== undefined) {
		const gcm = createDecipheriv(nodeName as CipherGCMTypes, key, iv, { authTagLength: options.authTagLength });
		return {
			update: (chunk) => gcm.update(chunk),
			final: () => gcm.final(),
			setAuthTag: (tag) => {
				gcm.setAuthTag(tag);
			},
		};
	}
	const cbc = createDecipheriv(nodeName, key, iv);
	return {
		update: (chunk) => cbc.update(chunk),
		final: () => cbc.final(),
		setAuthTag: () => {
			throw new Error(`${nodeName} has no authentication tag`);
		},
	};
}

/**
 * Whether the runtime offers a cipher. Node 20 on OpenSSL 3 lists RC2 and single DES only
 * with the legacy provider (`node --openssl-legacy-provider`).
 */
export function isCipherAvailable(nodeName: string): boolean {
	return getCiphers().includes(nodeName.toLowerCase());
}

/**
 * Runs chunks through `cipher.update` in pieces of about {@link CIPHER_CHUNK_SIZE}: large
 * chunks are sliced (no copy), runs of small ones (e.g. 4 KiB BER segments) are joined, so
 * per-call overhead stays negligible at hundreds of MB/s. Does not call `final()`.
 */
export async function* cipherChunks(input: Chunks, cipher: StreamCipher, chunkSize = CIPHER_CHUNK_SIZE): Chunks {
	let pending: Uint8Array | undefined;
	let filled = 0;
	for await (const chunk of input) {
		let offset = 0;
		if (filled > 0 || chunk.byteLength < chunkSize) {
			pending ??= new Uint8Array(chunkSize);
			const n = Math.min(chunkSize - filled, chunk.byteLength);
			pending.set(chunk.subarray(0, n), filled);
			filled += n;
			offset = n;
			if (filled < chunkSize) continue;
			const out = cipher.update(pending);
			filled = 0;
			if (out.byteLength > 0) yield out;
		}
		while (chunk.byteLength - offset >= chunkSize) {
			const out = cipher.update(chunk.subarray(offset, offset + chunkSize));
			offset += chunkSize;
			if (out.byteLength > 0) yield out;
		}
		if (offset < chunk.byteLength) {
			pending ??= new Uint8Array(chunkSize);
			pending.set(chunk.subarray(offset), 0);
			filled = chunk.byteLength - offset;
		}
	}
	if (filled > 0 && pending) {
		const out = cipher.update(pending.subarray(0, filled));
		if (out.byteLength > 0) yield out;
	}
}
