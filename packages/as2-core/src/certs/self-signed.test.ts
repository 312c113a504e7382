import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openssl, opensslVerifyDetached, scratch } from "../../test/helpers/openssl.ts";
import { signDetached, verifyDetached } from "../cms/signed-data.ts";
import { digestBytes } from "../crypto/index.ts";
import { describeCertificate, type GeneratedIdentity, generateSelfSigned, readIdentity } from "./index.ts";

const dir = scratch("as2kit-selfsigned-");
let generated: GeneratedIdentity;
let certPath: string;

beforeAll(async () => {
	generated = await generateSelfSigned({
		commonName: "as2.example.com",
		organization: "Example, Inc.",
		notBefore: new Date("2026-01-01T00:00:00Z"),
		days: 3650,
	});
	certPath = dir.file("self.pem", generated.certificatePem);
});
afterAll(() => dir.cleanup());

describe("generateSelfSigned", () => {
	it("makes a certificate OpenSSL reads as RSA-2048/SHA-256 with the AS2 key usages and an SKI", () => {
		const text = openssl(["x509", "-in", certPath, "-noout", "-text"]).toString();
		expect(text).toContain("Signature Algorithm: sha256WithRSAEncryption");
		expect(text).toContain("Public-Key: (2048 bit)");
		expect(text).toMatch(/X509v3 Key Usage: critical\s*\n\s*Digital Signature, Key Encipherment/);
		expect(text).toContain("X509v3 Subject Key Identifier");
		expect(text).toContain("Not Before: Jan  1 00:00:00 2026 GMT");
		const info = describeCertificate(generated.certificate);
		expect(info.subject).toBe("CN=as2.example.com,O=Example\\, Inc.");
		expect(info.subject).toBe(
			openssl(["x509", "-in", certPath, "-noout", "-subject", "-nameopt", "RFC2253"]).toString().trim().slice(8),
		);
		expect(info.notAfter).toEqual(new Date("2035-12-30T00:00:00Z"));
		expect(info.keyBits).toBe(2048);
	});

	it("passes `openssl verify -CAfile self self`", () => {
		const out = openssl([
			"verify",
			"-CAfile",
			certPath,
			"-attime",
			String(Date.parse("2027-01-01") / 1000),
			certPath,
		]).toString();
		expect(out.trim()).toBe(`${certPath}: OK`);
	});

	it("returns a key that matches, exports as PEM, and signs messages OpenSSL verifies", () => {
		const identity = readIdentity({ key: generated.privateKeyPem, certificate: generated.certificatePem });
		expect(identity.certificate).toEqual(generated.certificate);
		const content = new TextEncoder().encode("payload");
		const p7s = signDetached(content, {
			privateKey: generated.privateKey,
			certificate: generated.certificate,
			digest: "sha256",
		});
		opensslVerifyDetached({
			signaturePath: dir.file("sig.der", p7s),
			contentPath: dir.file("content.txt", content),
			caPath: certPath,
			outPath: dir.file("verified.txt"),
			at: Date.parse("2027-01-01") / 1000,
		});

		const at = new Date("2027-01-01T00:00:00Z");
		verifyDetached(p7s, (a) => digestBytes(a, content), { trustedCertificates: [generated.certificate], at });
	});

	it("refuses keys below the spec's 2048-bit minimum and bad dates", async () => {
		await expect(generateSelfSigned({ commonName: "x", bits: 1024 })).rejects.toMatchObject({
			code: "UNSUPPORTED_ALGORITHM",
		});
		await expect(
			generateSelfSigned({ commonName: "x", notBefore: new Date("2026-01-02"), notAfter: new Date("2026-01-01") }),
		).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
	});

	it("certifies a given key pair instead of a new one, and refuses one of another size", async () => {
		const rsa = (modulusLength: number) =>
			globalThis.crypto.subtle.generateKey(
				{ name: "RSASSA-PKCS1-v1_5", modulusLength, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
				true,
				["sign", "verify"],
			) as Promise<CryptoKeyPair>;
		const keyPair = await rsa(2048);
		const pkcs8 = new Uint8Array(await globalThis.crypto.subtle.exportKey("pkcs8", keyPair.privateKey));
		const first = await generateSelfSigned({ commonName: "first", keyPair });
		const second = await generateSelfSigned({ commonName: "second", keyPair });
		expect(first.privateKeyPem).toBe(second.privateKeyPem);
		expect(first.privateKeyPem).toContain(Buffer.from(pkcs8).toString("base64").slice(0, 60));
		expect(describeCertificate(first.certificate).fingerprint).not.toBe(
			describeCertificate(second.certificate).fingerprint,
		);
		await expect(generateSelfSigned({ commonName: "x", bits: 3072, keyPair })).rejects.toMatchObject({
			code: "VALIDATION_FAILED",
		});
	});
});
