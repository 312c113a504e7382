import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rc2CbcEncrypt, rc2EncryptBlocks } from "../../test/helpers/rc2-encrypt.ts";
import { concatBytes } from "../bytes/index.ts";
import { createRc2CbcDecryptor, rc2CbcDecrypt, rc2DecryptBlocks } from "./rc2.ts";

const hex = (s: string) => new Uint8Array(Buffer.from(s, "hex"));

// RFC 2268 §5: key, effective key bits, plaintext, ciphertext.
const VECTORS = [
	["0000000000000000", 63, "0000000000000000", "ebb773f993278eff"],
	["ffffffffffffffff", 64, "ffffffffffffffff", "278b27e42e2f0d49"],
	["3000000000000000", 64, "1000000000000001", "30649edf9be7d2c2"],
	["88", 64, "0000000000000000", "61a8a244adacccf0"],
	["88bca90e90875a", 64, "0000000000000000", "6ccf4308974c267f"],
	["88bca90e90875a7f0f79c384627bafb2", 64, "0000000000000000", "1a807d272bbe5db1"],
	["88bca90e90875a7f0f79c384627bafb2", 128, "0000000000000000", "2269552ab0f85ca6"],
] as const;

describe("RC2 (RFC 2268)", () => {
	it.each(VECTORS)(
		"the test helper's encryption meets the §5 vector for key %s (%i bits)",
		(k, bits, plain, cipher) => {
			expect(rc2EncryptBlocks(hex(k), bits, hex(plain))).toEqual(hex(cipher));
			expect(rc2DecryptBlocks(hex(k), bits, hex(cipher))).toEqual(hex(plain));
		},
	);

	it("streaming CBC decryption gives the same bytes for any chunking, padding stripped (property)", () => {
		fc.assert(
			fc.property(
				fc.uint8Array({ minLength: 1, maxLength: 128 }),
				fc.constantFrom(32, 40, 64, 128),
				fc.uint8Array({ minLength: 8, maxLength: 8 }),
				fc.uint8Array({ maxLength: 300 }),
				fc.array(fc.nat({ max: 320 }), { maxLength: 6 }),
				(key, bits, iv, plain, cuts) => {
					const cipher = rc2CbcEncrypt(key, bits, iv, plain);
					expect(rc2CbcDecrypt(key, bits, iv, cipher)).toEqual(plain);
					const decryptor = createRc2CbcDecryptor(key, bits, iv);
					const out: Uint8Array[] = [];
					let from = 0;
					for (const cut of [...cuts.map((c) => Math.min(c, cipher.byteLength)), cipher.byteLength].sort(
						(a, b) => a - b,
					)) {
						out.push(decryptor.update(cipher.subarray(from, cut)));
						from = cut;
					}
					out.push(decryptor.final());
					expect(concatBytes(out)).toEqual(plain);
				},
			),
			{ numRuns: 300 },
		);
	});

	it("a bad length or padding is 'bad decrypt' at final()", () => {
		const key = hex("0102030405");
		const iv = new Uint8Array(8);
		const cipher = rc2CbcEncrypt(
			key,
			40,
			iv,
			Uint8Array.from({ length: 13 }, (_, i) => i + 20),
		);
		for (const data of [cipher.subarray(0, 12), new Uint8Array(0), cipher.subarray(0, 8)]) {
			const decryptor = createRc2CbcDecryptor(key, 40, iv);
			decryptor.update(data);
			expect(() => decryptor.final()).toThrow(/bad decrypt/);
		}
		// The right length with the wrong key: the padding does not check.
		const wrong = createRc2CbcDecryptor(hex("0102030406"), 40, iv);
		wrong.update(cipher);
		expect(() => wrong.final()).toThrow(/bad decrypt/);
	});
});
