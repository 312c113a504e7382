import {
	constants,
	createHash,
	createPublicKey,
	createSign,
	publicDecrypt,
	type Sign,
	sign as signOneShot,
} from "node:crypto";
import { DIGESTS, type DigestAlgorithm, type SignatureScheme } from "../algorithms.ts";
import { As2Error, isAs2Error } from "../errors/index.ts";
import { type PrivateKey, type PublicKey, rsaKeyBits } from "./keys.ts";
import { rsaPublicRaw } from "./raw-rsa.ts";

/** How an RSA signature is made: PKCS#1 v1.5 (RFC 8017 §8.2) or RSASSA-PSS (§8.1, RFC 4056). */
export interface SignatureParameters {
	/** The hash of the signature (and, for PSS, of MGF1 unless `mgfDigest` says otherwise). */
	digest: DigestAlgorithm;
	scheme: SignatureScheme;
	/** PSS salt length in octets; RFC 4056 §3 recommends the hash length, the default. */
	saltLength?: number;
	/** PSS MGF1 hash (RFC 4055 §3.1 lets it differ from `digest`); defaults to `digest`. */
	mgfDigest?: DigestAlgorithm;
}

/** An incremental RSA signature over streamed data. */
export interface StreamSigner {
	update(chunk: Uint8Array): void;
	sign(): Uint8Array;
}

function signOptions(key: PrivateKey, params: SignatureParameters) {
	// PKCS#1 v1.5 is the default padding of an RSA key; the bare key (not `{ key, padding }`)
	// is also the only form workerd's node:crypto accepts a KeyObject in.
	if (params.scheme === "pkcs1") return key;
	if (params.mgfDigest && params.mgfDigest !== params.digest) {
		throw new As2Error("UNSUPPORTED_ALGORITHM", "signing with an MGF1 hash other than the signature hash");
	}
	if (!pssSignaturesWork(key)) {
		throw new As2Error("UNSUPPORTED_ALGORITHM", "RSA-PSS signatures made by this runtime's node:crypto do not verify");
	}
	return {
		key,
		padding: constants.RSA_PKCS1_PSS_PADDING,
		saltLength: params.saltLength ?? DIGESTS[params.digest].size,
	};
}

const pssWorksWith = new WeakMap<PrivateKey, boolean>();

/**
 * Whether this runtime makes RSA-PSS signatures with `key` that verify, found once per key by
 * signing a probe and checking it with our own EMSA-PSS-VERIFY. workerd's node:crypto refuses
 * a KeyObject beside a padding option, and given the key as PEM it ignores the PSS padding
 * and signs PKCS#1 v1.5, which a partner would reject: there PSS is refused up front.
 */
function pssSignaturesWork(key: PrivateKey): boolean {
	// An RSA-PSS key (id-RSASSA-PSS) signs PSS by its type; the probe needs an rsaEncryption key.
	if (key.asymmetricKeyType !== "rsa") return true;
	let works = pssWorksWith.get(key);
	if (works !== undefined) return works;
	const probe = Buffer.from("as2kit RSA-PSS probe");
	const params: SignatureParameters = { digest: "sha256", scheme: "pss" };
	try {
		const signature = signOneShot("sha256", probe, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
		const digest = createHash("sha256").update(probe).digest();
		works = verifyDigestSignature(createPublicKey(key) as PublicKey, params, digest, signature) === "valid";
	} catch {
		works = false;
	}
	pssWorksWith.set(key, works);
	return works;
}

function signingFailed(error: unknown): As2Error {
	return new As2Error("SIGNING_FAILED", `RSA signing failed: ${(error as Error).message}`, { cause: error });
}

/** Signs data streamed through `update()` (a node Sign object; the content is never buffered). */
export function createStreamSigner(key: PrivateKey, params: SignatureParameters): StreamSigner {
	const options = signOptions(key, params);
	let signer: Sign;
	try {
		signer = createSign(DIGESTS[params.digest].nodeName);
	} catch (error) {
		throw signingFailed(error);
	}
	return {
		update(chunk) {
			signer.update(chunk);
		},
		sign() {
			try {
				return new Uint8Array(signer.sign(options));
			} catch (error) {
				throw signingFailed(error);
			}
		},
	};
}

/** Signs a small buffer in one call (e.g. the DER of CMS signed attributes). */
export function signBytes(key: PrivateKey, params: SignatureParameters, data: Uint8Array): Uint8Array {
	const options = signOptions(key, params);
	try {
		return new Uint8Array(signOneShot(DIGESTS[params.digest].nodeName, data, options));
	} catch (error) {
		throw signingFailed(error);
	}
}

/**
 * {@link signBytes} with the RSA private-key operation in libuv's thread pool (node:crypto's
 * `sign` with a callback). An RSA-2048 signature is about 1 ms of CPU: a server that signs in
 * its event loop holds every request waiting behind it that long (issue #20). `data` must not
 * change until the promise settles.
 */
export function signBytesAsync(key: PrivateKey, params: SignatureParameters, data: Uint8Array): Promise<Uint8Array> {
	return new Promise((resolve, reject) => {
		try {
			signOneShot(DIGESTS[params.digest].nodeName, data, signOptions(key, params), (error, signature) => {
				if (error) reject(signingFailed(error));
				else resolve(new Uint8Array(signature));
			});
		} catch (error) {
			reject(isAs2Error(error) ? error : signingFailed(error));
		}
	});
}

/**
 * - `valid`: the signature is over `digest`;
 * - `digest-mismatch`: the signature is well formed under this key but over another digest
 *   (the content changed; the key is right);
 * - `invalid`: not a signature by this key (or not with these parameters).
 */
export type SignatureCheck = "valid" | "digest-mismatch" | "invalid";

/**
 * DigestInfo prefixes (RFC 8017 §9.2, note 1), with the NULL parameters and without them:
 * some old signers omit the NULL (RFC 3370 §2.1 asks receivers to accept both).
 */
const DIGEST_INFO_PREFIXES: Record<DigestAlgorithm, readonly Buffer[]> = {
	sha1: hexes("3021300906052b0e03021a05000414", "301f300706052b0e03021a0414"),
	sha256: hexes("3031300d060960864801650304020105000420", "302f300b06096086480165030402010420"),
	sha384: hexes("3041300d060960864801650304020205000430", "303f300b06096086480165030402020430"),
	sha512: hexes("3051300d060960864801650304020305000440", "304f300b06096086480165030402030440"),
};

function hexes(...values: string[]): Buffer[] {
	return values.map((hex) => Buffer.from(hex, "hex"));
}

/**
 * Verifies an RSA signature over a precomputed digest with raw public-key operations, so
 * that content hashed while streaming needs no second pass: PKCS#1 v1.5 by recovering the
 * DigestInfo (RFC 8017 §8.2.2), PSS by EMSA-PSS-VERIFY (RFC 8017 §9.1.2).
 * `key` must be an `rsaEncryption` key (see certs: RSA-PSS SPKIs are re-wrapped).
 */
export function verifyDigestSignature(
	key: PublicKey,
	params: SignatureParameters,
	digest: Uint8Array,
	signature: Uint8Array,
): SignatureCheck {
	const modBits = rsaKeyBits(key);
	const k = Math.ceil(modBits / 8);
	if (modBits === 0 || signature.byteLength === 0 || signature.byteLength > k) return "invalid";
	// Some signers drop leading zero octets of the signature (RFC 8017 §8.2.2 step 1 wants k).
	const s = signature.byteLength === k ? signature : leftPad(signature, k);
	let recovered: Buffer;
	try {
		recovered = Buffer.from(
			params.scheme === "pss"
				? rsaPublicRaw(key, s, k)
				: publicDecrypt({ key, padding: constants.RSA_PKCS1_PADDING }, s),
		);
	} catch {
		return "invalid";
	}
	if (params.scheme === "pkcs1") return checkDigestInfo(params.digest, recovered, digest);
	return emsaPssVerify(params, digest, recovered, modBits - 1);
}

function checkDigestInfo(algorithm: DigestAlgorithm, recovered: Buffer, digest: Uint8Array): SignatureCheck {
	const size = DIGESTS[algorithm].size;
	for (const prefix of DIGEST_INFO_PREFIXES[algorithm]) {
		if (recovered.byteLength !== prefix.byteLength + size) continue;
		if (!recovered.subarray(0, prefix.byteLength).equals(prefix)) continue;
		return recovered.subarray(prefix.byteLength).equals(digest) ? "valid" : "digest-mismatch";
	}
	return "invalid";
}

/** RFC 8017 §9.1.2 EMSA-PSS-VERIFY; `em` is the k-octet integer from the RSA operation. */
function emsaPssVerify(params: SignatureParameters, mHash: Uint8Array, m: Uint8Array, emBits: number): SignatureCheck {
	const hLen = DIGESTS[params.digest].size;
	const sLen = params.saltLength ?? hLen;
	const emLen = Math.ceil(emBits / 8);
	// I2OSP(m, emLen): when emBits is a multiple of 8 the top octet of the k-octet value is 0.
	for (let i = 0; i < m.byteLength - emLen; i++) if (m[i] !== 0) return "invalid";
	const em = m.subarray(m.byteLength - emLen);
	// Steps 3-4.
	if (emLen < hLen + sLen + 2 || em[emLen - 1] !== 0xbc) return "invalid";
	const dbLen = emLen - hLen - 1;
	const maskedDb = em.subarray(0, dbLen);
	const h = em.subarray(dbLen, dbLen + hLen);
	// Step 6: the leftmost 8·emLen − emBits bits of maskedDB must be zero.
	const topBits = 8 * emLen - emBits;
	const topMask = 0xff >> topBits;
	if ((maskedDb[0]! & ~topMask & 0xff) !== 0) return "invalid";
	// Steps 7-9.
	const db = mgf1(params.mgfDigest ?? params.digest, h, dbLen);
	for (let i = 0; i < dbLen; i++) db[i]! ^= maskedDb[i]!;
	db[0]! &= topMask;
	// Step 10: PS (zeros) then 0x01, then the salt.
	const psLen = emLen - hLen - sLen - 2;
	for (let i = 0; i < psLen; i++) if (db[i] !== 0) return "invalid";
	if (db[psLen] !== 0x01) return "invalid";
	const salt = db.subarray(dbLen - sLen);
	// Steps 12-14: H' = Hash(0x00·8 || mHash || salt).
	const hPrime = createHash(DIGESTS[params.digest].nodeName)
		.update(new Uint8Array(8))
		.update(mHash)
		.update(salt)
		.digest();
	return hPrime.equals(h) ? "valid" : "digest-mismatch";
}

/** RFC 8017 Appendix B.2.1 MGF1. */
function mgf1(algorithm: DigestAlgorithm, seed: Uint8Array, length: number): Uint8Array {
	const out = new Uint8Array(length);
	const counter = new Uint8Array(4);
	for (let offset = 0, c = 0; offset < length; c++) {
		counter[0] = c >>> 24;
		counter[1] = (c >>> 16) & 0xff;
		counter[2] = (c >>> 8) & 0xff;
		counter[3] = c & 0xff;
		const block = createHash(DIGESTS[algorithm].nodeName).update(seed).update(counter).digest();
		const n = Math.min(block.byteLength, length - offset);
		out.set(block.subarray(0, n), offset);
		offset += n;
	}
	return out;
}

function leftPad(bytes: Uint8Array, size: number): Uint8Array {
	const out = new Uint8Array(size);
	out.set(bytes, size - bytes.byteLength);
	return out;
}
