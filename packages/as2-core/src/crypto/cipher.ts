import { type CipherGCMTypes, createCipheriv, createDecipheriv, getCiphers } from "node:crypto";
import type { Chunks } from "../bytes/index.ts";
import { As2Error } from "../errors/index.ts";
import { createCbcOverEcb } from "./cbc-over-ecb.ts";
import { createRc2CbcDecryptor } from "./rc2.ts";

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
	/** RC2 only (RFC 2268 §2): the effective key bits; by default those of the cipher name. */
	effectiveKeyBits?: number;
}

/**
 * RC2-CBC names (`rc2-40-cbc`, `rc2-64-cbc`, `rc2-cbc` = 128 effective bits). RC2 is
 * decrypted by our own implementation (`rc2.ts`): OpenSSL 3 keeps it in the legacy
 * provider, which Node 20 does not load. Decryption only.
 */
const RC2_NAME = /^rc2(?:-(\d+))?-cbc$/;

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
		const gcm = available(nodeName, () =>
			createCipheriv(nodeName as CipherGCMTypes, key, iv, { authTagLength: options.authTagLength }),
		);
		return { update: (chunk) => gcm.update(chunk), final: () => gcm.final(), authTag: () => gcm.getAuthTag() };
	}
	const cbc = cbcCipher(nodeName, "encrypt", key, iv);
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
		const gcm = available(nodeName, () =>
			createDecipheriv(nodeName as CipherGCMTypes, key, iv, { authTagLength: options.authTagLength }),
		);
		return {
			update: (chunk) => gcm.update(chunk),
			final: () => gcm.final(),
			setAuthTag: (tag) => {
				gcm.setAuthTag(tag);
			},
		};
	}
	const rc2 = RC2_NAME.exec(nodeName.toLowerCase());
	const cbc = rc2
		? createRc2CbcDecryptor(key, options.effectiveKeyBits ?? Number(rc2[1] ?? 128), iv)
		: cbcCipher(nodeName, "decrypt", key, iv);
	return {
		update: (chunk) => cbc.update(chunk),
		final: () => cbc.final(),
		setAuthTag: () => {
			throw new Error(`${nodeName} has no authentication tag`);
		},
	};
}

const AES_CBC = /^aes-(?:128|192|256)-cbc$/;

/** A CBC cipher; AES-CBC is built on AES-ECB where the runtime has only the latter (Deno: AES-192). */
function cbcCipher(nodeName: string, mode: "encrypt" | "decrypt", key: Uint8Array, iv: Uint8Array): StreamCipher {
	return available(
		nodeName,
		() => (mode === "encrypt" ? createCipheriv(nodeName, key, iv) : createDecipheriv(nodeName, key, iv)),
		AES_CBC.test(nodeName.toLowerCase())
			? () => createCbcOverEcb(nodeName.toLowerCase().replace(/-cbc$/, "-ecb"), mode, key, iv)
			: undefined,
	);
}

/**
 * Makes a cipher, or else the `fallback` where the runtime's node:crypto has no such cipher
 * (Deno 2 has `aes-192-ecb` but no `aes-192-cbc`), or else answers
 * UNSUPPORTED_ALGORITHM.
 */
function available<T>(nodeName: string, make: () => T, fallback?: () => T): T {
	try {
		return make();
	} catch (error) {
		if (!isUnknownCipher(error)) throw error;
		try {
			if (fallback) return fallback();
		} catch (fallbackError) {
			if (!isUnknownCipher(fallbackError)) throw fallbackError;
		}
		throw new As2Error("UNSUPPORTED_ALGORITHM", `this runtime's node:crypto has no ${nodeName} cipher`, {
			cause: error,
		});
	}
}

function isUnknownCipher(error: unknown): boolean {
	return (error as { code?: string }).code === "ERR_CRYPTO_UNKNOWN_CIPHER";
}

/**
 * Whether content encrypted with a cipher can be decrypted here. Node 20 on OpenSSL 3 lists
 * single DES only with the legacy provider (`node --openssl-legacy-provider`); RC2 is
 * always ours, and so is AES-CBC over the runtime's AES-ECB (Deno 2: AES-192).
 */
export function isCipherAvailable(nodeName: string): boolean {
	const name = nodeName.toLowerCase();
	const ciphers = runtimeCiphers();
	return RC2_NAME.test(name) || ciphers.has(name) || (AES_CBC.test(name) && ciphers.has(name.replace(/-cbc$/, "-ecb")));
}

let ciphersOfRuntime: ReadonlySet<string> | undefined;

/**
 * `getCiphers()` as a set, made once: node computes the list once per process too, but hands
 * out a copy of it on every call (some 170 names, 1.1 KB of heap for every message received,
 * issue #20, stop 34).
 */
function runtimeCiphers(): ReadonlySet<string> {
	ciphersOfRuntime ??= new Set(getCiphers());
	return ciphersOfRuntime;
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
