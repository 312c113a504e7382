import { constants, generateKeyPairSync, publicDecrypt, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { PublicKey } from "./keys.ts";
import { rsavp1 } from "./raw-rsa.ts";

// The BigInt RSAVP1 is what Deno uses for PSS verification (its publicDecrypt has no
// RSA_NO_PADDING): on Node it must give OpenSSL's bytes exactly.
describe("rsavp1", () => {
	const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });

	it("recovers the same k octets as OpenSSL's RSA_NO_PADDING", () => {
		const signature = sign("sha256", Buffer.from("payload"), {
			key: privateKey,
			padding: constants.RSA_PKCS1_PSS_PADDING,
			saltLength: 32,
		});
		const openssl = publicDecrypt({ key: publicKey, padding: constants.RSA_NO_PADDING }, signature);
		expect(Buffer.from(rsavp1(publicKey as PublicKey, signature, 256) ?? [])).toEqual(openssl);
	});

	it("refuses a value not below the modulus", () => {
		expect(rsavp1(publicKey as PublicKey, new Uint8Array(256).fill(0xff), 256)).toBeUndefined();
	});
});
