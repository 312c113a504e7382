import { constants, privateEncrypt, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { testIdentity } from "../../test/helpers/certs.ts";
import { DIGEST_ALGORITHMS } from "../algorithms.ts";
import { digestBytes, importPrivateKey, publicKeyOfCertificate, verifyDigestSignature } from "./index.ts";
import { bmpPassword, pkcs12Kdf } from "./pkcs12-pbe.ts";
import { rc2DecryptBlocks } from "./rc2.ts";

const alice = testIdentity("alice");
const bob = testIdentity("bob");
const key = importPrivateKey(alice.keyPem);
const publicKey = publicKeyOfCertificate(alice.certDer);
const data = new TextEncoder().encode("data to sign");
const hex = (s: string) => new Uint8Array(Buffer.from(s, "hex"));

describe("verifyDigestSignature", () => {
	for (const digest of DIGEST_ALGORITHMS) {
		it(`PKCS#1 v1.5 ${digest}: valid, digest-mismatch, invalid`, () => {
			const signature = new Uint8Array(sign(digest, data, key));
			const params = { digest, scheme: "pkcs1" as const };
			expect(verifyDigestSignature(publicKey, params, digestBytes(digest, data), signature)).toBe("valid");
			expect(verifyDigestSignature(publicKey, params, digestBytes(digest, new Uint8Array(1)), signature)).toBe(
				"digest-mismatch",
			);
			expect(
				verifyDigestSignature(publicKeyOfCertificate(bob.certDer), params, digestBytes(digest, data), signature),
			).toBe("invalid");
		});

		it(`PSS ${digest}: every salt length OpenSSL may choose`, () => {
			const hLen = digestBytes(digest, data).byteLength;
			for (const saltLength of [0, 20, hLen, 256 - hLen - 2]) {
				const signature = new Uint8Array(
					sign(digest, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength }),
				);
				const params = { digest, scheme: "pss" as const, saltLength };
				expect(verifyDigestSignature(publicKey, params, digestBytes(digest, data), signature)).toBe("valid");
				expect(verifyDigestSignature(publicKey, params, digestBytes(digest, new Uint8Array(1)), signature)).toBe(
					"digest-mismatch",
				);
				expect(
					verifyDigestSignature(publicKeyOfCertificate(bob.certDer), params, digestBytes(digest, data), signature),
				).toBe("invalid");
			}
		});
	}

	it("accepts a DigestInfo without NULL parameters (RFC 3370 §2.1) and a short signature", () => {
		const digestInfo = hex(
			`302f300b06096086480165030402010420${Buffer.from(digestBytes("sha256", data)).toString("hex")}`,
		);
		const signature = new Uint8Array(privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, digestInfo));
		expect(
			verifyDigestSignature(publicKey, { digest: "sha256", scheme: "pkcs1" }, digestBytes("sha256", data), signature),
		).toBe("valid");
		expect(
			verifyDigestSignature(
				publicKey,
				{ digest: "sha256", scheme: "pkcs1" },
				digestBytes("sha256", data),
				new Uint8Array(0),
			),
		).toBe("invalid");
	});
});

describe("PKCS#12 KDF (RFC 7292 Appendix B) and RC2 (RFC 2268)", () => {
	it("matches the published PKCS#12 KDF vectors", () => {
		const salt = hex("0a58cf64530d823f");
		expect(pkcs12Kdf("sha1", bmpPassword("smeg"), salt, 1, 1, 24)).toEqual(
			hex("8aaae6297b6cb04642ab5b077851284eb7128f1a2a7fbca3"),
		);
		expect(pkcs12Kdf("sha1", bmpPassword("smeg"), salt, 1, 2, 8)).toEqual(hex("79993dfe048d3b76"));
		const salt2 = hex("05dec959acff72f7");
		expect(pkcs12Kdf("sha1", bmpPassword("queeg"), salt2, 1000, 1, 24)).toEqual(
			hex("ed2034e36328830ff09df1e1a07dd357185dac0d4f9eb3d4"),
		);
		expect(pkcs12Kdf("sha1", bmpPassword("queeg"), salt2, 1000, 2, 8)).toEqual(hex("11dedad7758d4860"));
	});

	it.each([
		["0000000000000000", 63, "0000000000000000", "ebb773f993278eff"],
		["ffffffffffffffff", 64, "ffffffffffffffff", "278b27e42e2f0d49"],
		["3000000000000000", 64, "1000000000000001", "30649edf9be7d2c2"],
		["88", 64, "0000000000000000", "61a8a244adacccf0"],
		["88bca90e90875a", 64, "0000000000000000", "6ccf4308974c267f"],
		["88bca90e90875a7f0f79c384627bafb2", 64, "0000000000000000", "1a807d272bbe5db1"],
		["88bca90e90875a7f0f79c384627bafb2", 128, "0000000000000000", "2269552ab0f85ca6"],
	])("RC2 key %s (%i bits) decrypts the RFC 2268 §5 vector", (k, bits, plain, cipher) => {
		expect(rc2DecryptBlocks(hex(k), bits, hex(cipher))).toEqual(hex(plain));
	});
});
