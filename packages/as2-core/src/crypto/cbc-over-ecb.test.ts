import { createCipheriv, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { concatBytes } from "../bytes/index.ts";
import { createCbcOverEcb } from "./cbc-over-ecb.ts";
import type { StreamCipher } from "./cipher.ts";

// The AES-CBC Deno uses for AES-192 (its node:crypto has aes-192-ecb, not aes-192-cbc) must
// give OpenSSL's AES-CBC bytes, padding included, whatever the chunking.
function run(cipher: StreamCipher, data: Uint8Array, chunk: number): Uint8Array {
	const parts: Uint8Array[] = [];
	for (let p = 0; p < data.byteLength; p += chunk) parts.push(cipher.update(data.subarray(p, p + chunk)));
	parts.push(cipher.final());
	return concatBytes(parts);
}

describe("createCbcOverEcb", () => {
	for (const bits of [128, 192, 256]) {
		it(`matches OpenSSL's aes-${bits}-cbc both ways, for lengths around the block and any chunking`, () => {
			for (const length of [0, 1, 15, 16, 17, 31, 32, 33, 1000]) {
				for (const chunk of [1, 7, 16, 64, 4096]) {
					const key = randomBytes(bits / 8);
					const iv = randomBytes(16);
					const data = randomBytes(length);
					const openssl = createCipheriv(`aes-${bits}-cbc`, key, iv);
					const expected = Buffer.concat([openssl.update(data), openssl.final()]);
					const ours = run(createCbcOverEcb(`aes-${bits}-ecb`, "encrypt", key, iv), data, chunk);
					expect(Buffer.from(ours)).toEqual(expected);
					expect(Buffer.from(run(createCbcOverEcb(`aes-${bits}-ecb`, "decrypt", key, iv), expected, chunk))).toEqual(
						data,
					);
				}
			}
		});
	}

	it("refuses bad padding and a truncated last block as OpenSSL does", () => {
		const key = randomBytes(24);
		const iv = randomBytes(16);
		const badPadding = createCipheriv("aes-192-cbc", key, iv);
		badPadding.setAutoPadding(false);
		const unpadded = Buffer.concat([badPadding.update(Buffer.alloc(32, 0)), badPadding.final()]);
		expect(() => run(createCbcOverEcb("aes-192-ecb", "decrypt", key, iv), unpadded, 16)).toThrow(/bad decrypt/);
		expect(() => run(createCbcOverEcb("aes-192-ecb", "decrypt", key, iv), unpadded.subarray(0, 20), 16)).toThrow(
			/bad decrypt/,
		);
	});
});
