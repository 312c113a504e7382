import { concatBytes } from "../bytes/index.ts";

/**
 * RC2 decryption (RFC 2268), CBC mode, in plain TypeScript. OpenSSL 3 keeps RC2 in its legacy
 * provider, which Node 20 does not load, yet PKCS#12 files from OpenSSL 1.x, Windows and
 * `openssl pkcs12 -export -legacy` encrypt their certificates with 40-bit RC2, and old S/MIME
 * senders use rc2-cbc (RFC 3370 §5.2). Decryption only: we never produce RC2.
 */

// RFC 2268 §2: PITABLE, a permutation of 0..255 derived from the digits of pi.
const PITABLE = Uint8Array.from(
	Buffer.from(
		"d978f9c419ddb5ed28e9fd794aa0d89dc67e37832b76538e624c6488448bfba2179a59f587b34f1361456d8d09817d32bd8f40eb86b77b0bf09521225c6b4e8254d66593ce60b21c7356c014a78cf1dc1275ca1f3bbee4d1423dd430a33cb6266fbf0eda4669075727f21d9bbc944303f811c7f690ef3ee706c3d52fc8661ed708e8eade8052eef784aa72ac354d6a2a961ad2715a1549744b9fd05e0418a4ecc2e0416e0f51cbcc2491af50a1f47039997c3a8523b8b47afc02365b25559731" +
			"2d5dfa98e38a92ae05df2910676cbac9d300e6cfe19ea82c6316013f58e289a90d38341bab33ffb0bb480c5fb9b1cd2ec5f3db47e5a59c770aa62068fe7fc1ad",
		"hex",
	),
);

/** RFC 2268 §2 key expansion: 64 16-bit subkeys for `effectiveBits` effective key bits. */
function expandKey(key: Uint8Array, effectiveBits: number): Uint16Array {
	const t = key.byteLength;
	if (t < 1 || t > 128) throw new RangeError(`RC2 key of ${t} bytes`);
	if (effectiveBits < 1 || effectiveBits > 1024) throw new RangeError(`RC2 effective key bits ${effectiveBits}`);
	const l = new Uint8Array(128);
	l.set(key);
	for (let i = t; i < 128; i++) l[i] = PITABLE[(l[i - 1]! + l[i - t]!) & 0xff]!;
	const t8 = Math.ceil(effectiveBits / 8);
	const tm = 0xff >> (8 * t8 - effectiveBits);
	l[128 - t8] = PITABLE[l[128 - t8]! & tm]!;
	for (let i = 127 - t8; i >= 0; i--) l[i] = PITABLE[l[i + 1]! ^ l[i + t8]!]!;
	const k = new Uint16Array(64);
	for (let i = 0; i < 64; i++) k[i] = l[2 * i]! | (l[2 * i + 1]! << 8);
	return k;
}

const SHIFTS = [1, 2, 3, 5] as const;

/** RFC 2268 §4: decrypts one 8-byte block in place (little-endian 16-bit words). */
function decryptBlock(k: Uint16Array, block: Uint8Array, offset: number): void {
	const r = [0, 0, 0, 0];
	for (let i = 0; i < 4; i++) r[i] = block[offset + 2 * i]! | (block[offset + 2 * i + 1]! << 8);
	let j = 63;
	const mixRound = () => {
		for (let i = 3; i >= 0; i--) {
			const s = SHIFTS[i]!;
			let x = r[i]!;
			x = ((x >>> s) | (x << (16 - s))) & 0xffff;
			x = (x - k[j]! - (r[(i + 3) % 4]! & r[(i + 2) % 4]!) - (~r[(i + 3) % 4]! & r[(i + 1) % 4]!)) & 0xffff;
			r[i] = x;
			j--;
		}
	};
	const mashRound = () => {
		for (let i = 3; i >= 0; i--) r[i] = (r[i]! - k[r[(i + 3) % 4]! & 63]!) & 0xffff;
	};
	for (let n = 0; n < 5; n++) mixRound();
	mashRound();
	for (let n = 0; n < 6; n++) mixRound();
	mashRound();
	for (let n = 0; n < 5; n++) mixRound();
	for (let i = 0; i < 4; i++) {
		block[offset + 2 * i] = r[i]! & 0xff;
		block[offset + 2 * i + 1] = r[i]! >> 8;
	}
}

/** RC2 ECB decryption of whole blocks (for tests against RFC 2268 §5 vectors). */
export function rc2DecryptBlocks(key: Uint8Array, effectiveBits: number, data: Uint8Array): Uint8Array {
	const k = expandKey(key, effectiveBits);
	const out = new Uint8Array(data);
	for (let p = 0; p + 8 <= out.byteLength; p += 8) decryptBlock(k, out, p);
	return out;
}

/** RC2-CBC decryption with PKCS#7 padding removal; throws on bad length or padding. */
export function rc2CbcDecrypt(key: Uint8Array, effectiveBits: number, iv: Uint8Array, data: Uint8Array): Uint8Array {
	const decryptor = createRc2CbcDecryptor(key, effectiveBits, iv);
	const head = decryptor.update(data);
	const tail = decryptor.final();
	return head.byteLength === 0 ? tail : concatBytes([head, tail]);
}

/** A streaming RC2-CBC decryption: as an OpenSSL decipher, `final()` checks and strips the padding. */
export interface Rc2CbcDecryptor {
	update(chunk: Uint8Array): Uint8Array;
	final(): Uint8Array;
}

/**
 * RC2-CBC decryption (RFC 2268 §4, CBC with PKCS#7 padding, RFC 5652 §6.3) over data in
 * any chunks. Like OpenSSL, `update()` holds back the last whole block until `final()`,
 * which removes the padding; bad length or padding throws "bad decrypt".
 */
export function createRc2CbcDecryptor(key: Uint8Array, effectiveBits: number, iv: Uint8Array): Rc2CbcDecryptor {
	if (iv.byteLength !== 8) throw new RangeError("RC2-CBC needs an 8-byte IV");
	const k = expandKey(key, effectiveBits);
	let previous = Uint8Array.from(iv);
	/** Up to one whole block plus the start of the next, not decrypted yet. */
	let pending = new Uint8Array(0);
	let finished = false;
	const decrypt = (data: Uint8Array): Uint8Array => {
		const out = Uint8Array.from(data);
		for (let p = 0; p < out.byteLength; p += 8) {
			decryptBlock(k, out, p);
			for (let i = 0; i < 8; i++) out[p + i]! ^= previous[i]!;
			previous = data.slice(p, p + 8);
		}
		return out;
	};
	return {
		update(chunk) {
			if (finished) throw new Error("RC2: update() after final()");
			const data = pending.byteLength === 0 ? chunk : concatBytes([pending, chunk]);
			// Keep the last whole block back: it may be all padding.
			let whole = data.byteLength - (data.byteLength % 8);
			if (whole === data.byteLength) whole -= 8;
			if (whole <= 0) {
				pending = Uint8Array.from(data);
				return new Uint8Array(0);
			}
			pending = data.slice(whole);
			return decrypt(data.subarray(0, whole));
		},
		final() {
			if (finished) throw new Error("RC2: final() called twice");
			finished = true;
			if (pending.byteLength !== 8) throw new Error("bad decrypt: RC2 data is not whole blocks");
			const last = decrypt(pending);
			const pad = last[7]!;
			if (pad < 1 || pad > 8) throw new Error("bad decrypt: RC2 padding");
			for (let i = 8 - pad; i < 8; i++) if (last[i] !== pad) throw new Error("bad decrypt: RC2 padding");
			return last.subarray(0, 8 - pad);
		},
	};
}
