import { describe, expect, it } from "vitest";
import { testIdentity } from "../../test/helpers/certs.ts";
import { openssl } from "../../test/helpers/openssl.ts";
import { readCertificateFields } from "../certs/certificate-fields.ts";
import { digestBytes, importPrivateKey, signBytes } from "../crypto/index.ts";
import { digestAlgorithmIdentifier, signatureAlgorithmIdentifier } from "./signed-algorithms.ts";
import { encodeSignedAttributes } from "./signed-attributes.ts";
import { createDetachedSigner, type SignOptions, signDetached, verifyDetached } from "./signed-data.ts";
import { readSignedData } from "./signed-reader.ts";

// The SignedData around a signature is built once per signing identity and filled in per
// message (signed-data-template.ts, issue #20). These tests hold the filled bytes to what a
// fresh encoding gives, and a template to its key, certificate, chain and options (rotation).

const alice = testIdentity("alice");
const bob = testIdentity("bob");
const carol = testIdentity("carol");
const aliceKey = importPrivateKey(alice.keyPem);
const bobKey = importPrivateKey(bob.keyPem);
const PKCS1_SHA256 = { digest: "sha256", scheme: "pkcs1" } as const;
const content = new TextEncoder().encode("Content-Type: text/plain\r\n\r\nper message\r\n");

function signedWith(opts: SignOptions, bytes = content) {
	const der = signDetached(bytes, opts);
	const parsed = readSignedData(der);
	const signerInfo = parsed.signerInfos[0]!;
	return { der, parsed, signerInfo };
}

function sidOf(certificate: Uint8Array) {
	const fields = readCertificateFields(certificate);
	return { issuer: fields.issuer, serial: fields.serial };
}

/** verifyDetached against exactly these trusted certificates; the signer's DER, or the error code. */
function verifiedBy(der: Uint8Array, trusted: Uint8Array[], bytes = content): string {
	try {
		verifyDetached(der, (a) => digestBytes(a, bytes), { trustedCertificates: trusted });
		return "valid";
	} catch (error) {
		return (error as { code?: string }).code ?? String(error);
	}
}

describe("SignedData template", () => {
	it("fills in exactly the signed attributes and PKCS#1 signature a fresh encoding has", () => {
		const times = [
			new Date("2026-11-27T21:00:00Z"),
			new Date("2049-12-31T23:59:59Z"),
			new Date("2050-01-01T00:00:00Z"), // GeneralizedTime (RFC 5280 §4.1.2.5): a longer hole
			new Date("2026-01-02T03:04:05Z"),
		];
		for (const algorithmProtection of [true, false]) {
			for (const signingTime of times) {
				const bytes = new TextEncoder().encode(`message at ${signingTime.toISOString()}`);
				const { der, signerInfo } = signedWith(
					{ privateKey: aliceKey, certificate: alice.certDer, digest: "sha256", signingTime, algorithmProtection },
					bytes,
				);
				const expected = encodeSignedAttributes({
					messageDigest: digestBytes("sha256", bytes),
					signingTime,
					...(algorithmProtection
						? {
								algorithmProtection: {
									digestAlgorithm: digestAlgorithmIdentifier("sha256"),
									signatureAlgorithm: signatureAlgorithmIdentifier("sha256", "pkcs1"),
								},
							}
						: {}),
				});
				expect(Buffer.from(signerInfo.signedAttributes!.signedBytes)).toEqual(Buffer.from(expected));
				expect(signerInfo.signedAttributes!.signingTime).toEqual(signingTime);
				// PKCS#1 v1.5 is deterministic: the signature is the one over these attributes.
				expect(Buffer.from(signerInfo.signatureValue)).toEqual(
					Buffer.from(signBytes(aliceKey, PKCS1_SHA256, expected)),
				);
				// The attributes travel tagged [0] IMPLICIT, the signed bytes tagged SET.
				const at = Buffer.from(der).indexOf(Buffer.from(expected.subarray(1)));
				expect(der[at - 1]).toBe(0xa0);
				expect(verifiedBy(der, [alice.certDer], bytes)).toBe("valid");
			}
		}
	});

	it("announces the size it writes, for each signing-time form, streaming or buffered", () => {
		for (const signingTime of [new Date("2030-06-01T00:00:00Z"), new Date("2051-06-01T00:00:00Z")]) {
			const opts: SignOptions = { privateKey: aliceKey, certificate: alice.certDer, digest: "sha384", signingTime };
			const streamed = createDetachedSigner(opts);
			const size = streamed.size;
			streamed.update(content);
			const der = streamed.finish();
			expect(der.byteLength).toBe(size);
			expect(Buffer.from(der)).toEqual(Buffer.from(signDetached(content, opts)));
		}
	});

	it("signs without signed attributes from its own template (RFC 5652 §5.4)", () => {
		const opts: SignOptions = {
			privateKey: aliceKey,
			certificate: alice.certDer,
			digest: "sha256",
			signedAttributes: false,
		};
		for (const bytes of [content, new TextEncoder().encode("another content")]) {
			const { der, signerInfo } = signedWith(opts, bytes);
			expect(signerInfo.signedAttributes).toBeUndefined();
			expect(Buffer.from(signerInfo.signatureValue)).toEqual(Buffer.from(signBytes(aliceKey, PKCS1_SHA256, bytes)));
			expect(verifiedBy(der, [alice.certDer], bytes)).toBe("valid");
		}
	});

	describe("rotation: a template belongs to its key, certificate, chain and options", () => {
		it("a new identity (key and certificate) signs with its own certificate and serial", () => {
			const before = signedWith({ privateKey: aliceKey, certificate: alice.certDer, digest: "sha256" });
			const after = signedWith({ privateKey: bobKey, certificate: bob.certDer, digest: "sha256" });
			expect(Buffer.from(after.parsed.certificates[0]!)).toEqual(Buffer.from(bob.certDer));
			expect(after.signerInfo.sid).toEqual(sidOf(bob.certDer));
			expect(verifiedBy(after.der, [bob.certDer])).toBe("valid");
			expect(verifiedBy(after.der, [alice.certDer])).toBe("AUTHENTICATION_FAILED");
			expect(verifiedBy(before.der, [alice.certDer])).toBe("valid");
		});

		it("a certificate re-issued on the same key object is the one carried and named", () => {
			const reissued = new Uint8Array(
				openssl([
					"req",
					"-x509",
					"-key",
					alice.keyPath,
					"-subj",
					"/CN=alice re-issued",
					"-days",
					"2",
					"-outform",
					"DER",
				]),
			);
			signedWith({ privateKey: aliceKey, certificate: alice.certDer, digest: "sha256" });
			const after = signedWith({ privateKey: aliceKey, certificate: reissued, digest: "sha256" });
			expect(Buffer.from(after.parsed.certificates[0]!)).toEqual(Buffer.from(reissued));
			expect(after.signerInfo.sid).toEqual(sidOf(reissued));
			expect(verifiedBy(after.der, [reissued])).toBe("valid");
		});

		it("a key re-imported from the same PEM (a new key object) still signs with its certificate", () => {
			const reimported = importPrivateKey(alice.keyPem);
			expect(reimported).not.toBe(aliceKey);
			const { der } = signedWith({ privateKey: reimported, certificate: alice.certDer, digest: "sha256" });
			expect(verifiedBy(der, [alice.certDer])).toBe("valid");
		});

		it("a key that does not match the certificate is refused, even after the pair signed", () => {
			signedWith({ privateKey: aliceKey, certificate: alice.certDer, digest: "sha256" });
			expect(() => signDetached(content, { privateKey: bobKey, certificate: alice.certDer, digest: "sha256" })).toThrow(
				/does not belong/,
			);
		});

		it("a changed chain, digest or attribute option changes the SignedData", () => {
			const base: SignOptions = { privateKey: aliceKey, certificate: alice.certDer, digest: "sha256" };
			expect(signedWith(base).parsed.certificates).toHaveLength(1);
			const chained = signedWith({ ...base, chain: [carol.certDer] });
			expect(chained.parsed.certificates.map((c) => Buffer.from(c))).toEqual([
				Buffer.from(alice.certDer),
				Buffer.from(carol.certDer),
			]);
			expect(signedWith({ ...base, chain: [bob.certDer] }).parsed.certificates[1]).toEqual(bob.certDer);
			const sha512 = signedWith({ ...base, digest: "sha512" });
			expect(sha512.signerInfo.digest).toBe("sha512");
			expect(verifiedBy(sha512.der, [alice.certDer])).toBe("valid");
			const unprotected = signedWith({ ...base, algorithmProtection: false });
			expect(unprotected.signerInfo.signedAttributes!.algorithmProtection).toBeUndefined();
			expect(signedWith(base).signerInfo.signedAttributes!.algorithmProtection).toBeDefined();
		});
	});
});
