/**
 * RC2 encryption (RFC 2268 §3), CBC with PKCS#7 padding, written from the RFC separately from
 * the decryptor under test, for RC2 content no tool here makes: OpenSSL writes only 40, 64
 * and 128 effective key bits, never the bare-IV (32-bit) parameters. Checked against the
 * RFC 2268 §5 vectors in src/crypto/rc2.test.ts.
 */

// RFC 2268 §2 PITABLE, as printed in the RFC (16 rows of 16).
const PITABLE = Uint8Array.from(
	Buffer.from(
		[
			"d978f9c419ddb5ed28e9fd794aa0d89d",
			"c67e37832b76538e624c6488448bfba2",
			"179a59f587b34f1361456d8d09817d32",
			"bd8f40eb86b77b0bf09521225c6b4e82",
			"54d66593ce60b21c7356c014a78cf1dc",
			"1275ca1f3bbee4d1423dd430a33cb626",
			"6fbf0eda4669075727f21d9bbc944303",
			"f811c7f690ef3ee706c3d52fc8661ed7",
			"08e8eade8052eef784aa72ac354d6a2a",
			"961ad2715a1549744b9fd05e0418a4ec",
			"c2e0416e0f51cbcc2491af50a1f47039",
			"997c3a8523b8b47afc02365b25559731",
			"2d5dfa98e38a92ae05df2910676cbac9",
			"d300e6cfe19ea82c6316013f58e289a9",
			"0d38341bab33ffb0bb480c5fb9b1cd2e",
			"c5f3db47e5a59c770aa62068fe7fc1ad",
		].join(""),
		"hex",
	),
);

function expandKey(key: Uint8Array, effectiveBits: number): Uint16Array {
	const t = key.byteLength;
	const l = new Uint8Array(128);
	l.set(key);
	for (let i = t; i < 128; i++) l[i] = PITABLE[(l[i - 1]! + l[i - t]!) % 256]!;
	const t8 = Math.ceil(effectiveBits / 8);
	const tm = 255 % 2 ** (8 + effectiveBits - 8 * t8);
	l[128 - t8] = PITABLE[l[128 - t8]! & tm]!;
	for (let i = 127 - t8; i >= 0; i--) l[i] = PITABLE[l[i + 1]! ^ l[i + t8]!]!;
	const k = new Uint16Array(64);
	for (let i = 0; i < 64; i++) k[i] = l[2 * i]! + 256 * l[2 * i + 1]!;
	return k;
}

function encryptBlock(k: Uint16Array, input: Uint8Array): Uint8Array {
	const r = [0, 1, 2, 3].map((i) => input[2 * i]! + 256 * input[2 * i + 1]!);
	const s = [1, 2, 3, 5];
	let j = 0;
	const mix = () => {
		for (let i = 0; i < 4; i++) {
			let x = (r[i]! + k[j]! + (r[(i + 3) % 4]! & r[(i + 2) % 4]!) + (~r[(i + 3) % 4]! & r[(i + 1) % 4]!)) & 0xffff;
			j++;
			x = ((x << s[i]!) | (x >>> (16 - s[i]!))) & 0xffff;
			r[i] = x;
		}
	};
	const mash = () => {
		for (let i = 0; i < 4; i++) r[i] = (r[i]! + k[r[(i + 3) % 4]! & 63]!) & 0xffff;
	};
	for (let n = 0; n < 5; n++) mix();
	mash();
	for (let n = 0; n < 6; n++) mix();
	mash();
	for (let n = 0; n < 5; n++) mix();
	return Uint8Array.from(r.flatMap((w) => [w & 0xff, w >>> 8]));
}

/** RC2 in ECB over whole blocks (for the RFC 2268 §5 vectors). */
export function rc2EncryptBlocks(key: Uint8Array, effectiveBits: number, data: Uint8Array): Uint8Array {
	const k = expandKey(key, effectiveBits);
	const out = new Uint8Array(data.byteLength);
	for (let p = 0; p < data.byteLength; p += 8) out.set(encryptBlock(k, data.subarray(p, p + 8)), p);
	return out;
}

/** RC2-CBC with PKCS#7 padding (RFC 5652 §6.3). */
export function rc2CbcEncrypt(key: Uint8Array, effectiveBits: number, iv: Uint8Array, data: Uint8Array): Uint8Array {
	const k = expandKey(key, effectiveBits);
	const pad = 8 - (data.byteLength % 8);
	const padded = new Uint8Array(data.byteLength + pad).fill(pad);
	padded.set(data);
	const out = new Uint8Array(padded.byteLength);
	let previous = iv;
	for (let p = 0; p < padded.byteLength; p += 8) {
		const block = padded.slice(p, p + 8);
		for (let i = 0; i < 8; i++) block[i]! ^= previous[i]!;
		previous = encryptBlock(k, block);
		out.set(previous, p);
	}
	return out;
}
