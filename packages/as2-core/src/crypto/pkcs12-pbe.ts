import { createDecipheriv, createHash, createHmac, pbkdf2Sync, timingSafeEqual } from "node:crypto";
import { DIGESTS, type DigestAlgorithm } from "../algorithms.ts";
import { rc2CbcDecrypt } from "./rc2.ts";

/**
 * Password-based primitives of PKCS#12 (RFC 7292) and PKCS#5 (RFC 8018). The structures
 * around them are read in `certs/pkcs12.ts`; only the byte work that needs node:crypto is here.
 */

/** Hash input block sizes `v` of RFC 7292 Appendix B.2. */
const BLOCK_SIZE: Record<DigestAlgorithm, number> = { sha1: 64, sha256: 64, sha384: 128, sha512: 128 };

/** RFC 7292 Appendix B.1: the password as a NUL-terminated big-endian BMPString. */
export function bmpPassword(password: string): Uint8Array {
	const out = new Uint8Array(password.length * 2 + 2);
	for (let i = 0; i < password.length; i++) {
		const c = password.charCodeAt(i);
		out[2 * i] = c >> 8;
		out[2 * i + 1] = c & 0xff;
	}
	return out;
}

/** Purposes of RFC 7292 Appendix B.3: key material, IV, MAC key. */
export type Pkcs12KeyPurpose = 1 | 2 | 3;

/**
 * The PKCS#12 key derivation function of RFC 7292 Appendix B.2: still what OpenSSL 3 uses
 * for the MAC key by default, and for the keys of the legacy `pbeWithSHAAnd…` schemes.
 */
export function pkcs12Kdf(
	algorithm: DigestAlgorithm,
	password: Uint8Array,
	salt: Uint8Array,
	iterations: number,
	purpose: Pkcs12KeyPurpose,
	length: number,
): Uint8Array {
	const v = BLOCK_SIZE[algorithm];
	const u = DIGESTS[algorithm].size;
	const nodeName = DIGESTS[algorithm].nodeName;
	// Steps 1-4: D = ID repeated; I = S || P, each repeated to a multiple of v.
	const d = new Uint8Array(v).fill(purpose);
	const repeat = (input: Uint8Array): Uint8Array => {
		const out = new Uint8Array(input.byteLength === 0 ? 0 : v * Math.ceil(input.byteLength / v));
		for (let i = 0; i < out.byteLength; i++) out[i] = input[i % input.byteLength]!;
		return out;
	};
	const i = new Uint8Array([...repeat(salt), ...repeat(password)]);
	const out = new Uint8Array(length);
	for (let offset = 0; offset < length; ) {
		// Step 6a: A = H^r(D || I).
		let a: Uint8Array = createHash(nodeName).update(d).update(i).digest();
		for (let r = 1; r < iterations; r++) a = createHash(nodeName).update(a).digest();
		const n = Math.min(u, length - offset);
		out.set(a.subarray(0, n), offset);
		offset += n;
		if (offset >= length) break;
		// Steps 6b-6c: B = A repeated to v octets; each v-octet block Ij = (Ij + B + 1) mod 2^(8v).
		const b = new Uint8Array(v);
		for (let j = 0; j < v; j++) b[j] = a[j % u]!;
		for (let block = 0; block < i.byteLength; block += v) {
			let carry = 1;
			for (let j = v - 1; j >= 0; j--) {
				const sum = i[block + j]! + b[j]! + carry;
				i[block + j] = sum & 0xff;
				carry = sum >> 8;
			}
		}
	}
	return out;
}

export function hmac(algorithm: DigestAlgorithm, key: Uint8Array, data: Uint8Array): Uint8Array {
	return new Uint8Array(createHmac(DIGESTS[algorithm].nodeName, key).update(data).digest());
}

/** Constant-time comparison (MAC checks). */
export function equalSecret(a: Uint8Array, b: Uint8Array): boolean {
	return a.byteLength === b.byteLength && timingSafeEqual(a, b);
}

/** RFC 8018 §5.2 PBKDF2. */
export function pbkdf2(
	password: Uint8Array,
	salt: Uint8Array,
	iterations: number,
	length: number,
	prf: DigestAlgorithm,
): Uint8Array {
	return new Uint8Array(pbkdf2Sync(password, salt, iterations, length, DIGESTS[prf].nodeName));
}

/**
 * CBC decryption with PKCS#7 padding; `cipher` is an OpenSSL name (`aes-256-cbc`,
 * `des-ede3-cbc`, `rc2-40-cbc`, `rc2-cbc`…). RC2 runs in our own implementation (OpenSSL 3
 * keeps it in the legacy provider that Node does not load). Throws when the runtime lacks
 * the cipher or the padding is wrong (usually: wrong password).
 */
export function decryptCbc(cipher: string, key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array {
	if (cipher === "rc2-40-cbc" || cipher === "rc2-64-cbc" || cipher === "rc2-cbc") {
		return rc2CbcDecrypt(key, key.byteLength * 8, iv, data);
	}
	const decipher = createDecipheriv(cipher, key, iv.byteLength === 0 ? null : iv);
	const head = decipher.update(data);
	const tail = decipher.final();
	return new Uint8Array(Buffer.concat([head, tail]));
}
