import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { testIdentity } from "../../test/helpers/certs.ts";
import { openssl } from "../../test/helpers/openssl.ts";
import { isAs2Error } from "../errors/index.ts";
import { parsePkcs12, readIdentity } from "./index.ts";

/** DER of the pbewithSHAAnd40BitRC2-CBC OID (RFC 7292 Appendix C). */
const PBE_SHA1_RC2_40 = [0x06, 0x0a, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x0c, 0x01, 0x06];

const alice = testIdentity("alice");
const bob = testIdentity("bob");

/** `openssl pkcs12 -export` of alice (OpenSSL 3 defaults unless `args` say otherwise), from stdout. */
function exportP12(args: string[] = [], password = "test-pass"): Uint8Array {
	return new Uint8Array(
		openssl([
			"pkcs12",
			"-export",
			"-inkey",
			alice.keyPath,
			"-in",
			alice.certPath,
			"-passout",
			`pass:${password}`,
			...args,
		]),
	);
}

function failure(fn: () => unknown): { code?: string; message?: string } {
	try {
		fn();
	} catch (error) {
		if (!isAs2Error(error)) throw error;
		return { code: error.code, message: error.message };
	}
	return {};
}

function expectAlice(identity: ReturnType<typeof parsePkcs12>): void {
	expect(identity.certificate).toEqual(alice.certDer);
	expect(identity.privateKey.type).toBe("private");
	expect(identity.privateKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
}

describe("parsePkcs12", () => {
	it("reads OpenSSL 3 defaults (PBES2/PBKDF2/AES-256-CBC, HMAC-SHA-256 MAC)", () => {
		const p12 = exportP12();
		const identity = parsePkcs12(p12, "test-pass");
		expectAlice(identity);
		expect(identity.chain).toEqual([]);
	});

	it("reads `openssl pkcs12 -export -legacy` (3DES key, RC2-40 certificates, SHA-1 MAC)", () => {
		const p12 = exportP12(["-legacy"]);
		expect(Buffer.from(p12).includes(Buffer.from(PBE_SHA1_RC2_40))).toBe(true);
		expectAlice(parsePkcs12(p12, "test-pass"));
	});

	it("never modifies its input, even a Node Buffer", () => {
		const p12 = exportP12(["-legacy"]);
		const buffer = Buffer.from(p12);
		expectAlice(parsePkcs12(buffer, "test-pass"));
		expect(new Uint8Array(buffer)).toEqual(p12);
	});

	it("reads legacy 3DES everywhere (Java keytool, Windows)", () => {
		expectAlice(parsePkcs12(exportP12(["-legacy", "-certpbe", "PBE-SHA1-3DES"]), "test-pass"));
	});

	it("reads unencrypted certificates and a SHA-512 MAC", () => {
		expectAlice(parsePkcs12(exportP12(["-certpbe", "NONE", "-macalg", "sha512"]), "test-pass"));
	});

	it("reads a file without MAC and with an empty password", () => {
		expectAlice(parsePkcs12(exportP12(["-nomac"]), "test-pass"));
		expectAlice(parsePkcs12(exportP12([], ""), ""));
	});

	it("separates the chain from the certificate that matches the key", () => {
		const identity = parsePkcs12(exportP12(["-certfile", bob.certPath]), "test-pass");
		expectAlice(identity);
		expect(identity.chain).toEqual([bob.certDer]);
	});

	it("RC4-encrypted bags: INVALID_CERTIFICATE naming the missing cipher", () => {
		const result = failure(() => parsePkcs12(exportP12(["-legacy", "-certpbe", "PBE-SHA1-RC4-128"]), "test-pass"));
		expect(result.code).toBe("INVALID_CERTIFICATE");
		expect(result.message).toMatch(/RC4-128.*legacy provider.*re-export/);
	});

	it("wrong password: INVALID_KEY 'wrong password'", () => {
		for (const p12 of [exportP12(), exportP12(["-legacy"])]) {
			const result = failure(() => parsePkcs12(p12, "nope"));
			expect(result.code).toBe("INVALID_KEY");
			expect(result.message).toMatch(/wrong password/);
		}
		// Without a MAC the decryption is what fails.
		expect(failure(() => parsePkcs12(exportP12(["-nomac"]), "nope")).message).toMatch(/wrong password/);
	});

	it("garbage: INVALID_CERTIFICATE, never a crash (property)", () => {
		expect(failure(() => parsePkcs12(new Uint8Array([1, 2, 3]), "x")).code).toBe("INVALID_CERTIFICATE");
		expect(failure(() => parsePkcs12(alice.certDer, "x")).code).toBe("INVALID_CERTIFICATE");
		const p12 = exportP12();
		fc.assert(
			fc.property(fc.integer({ min: 0, max: p12.byteLength - 1 }), fc.integer({ min: 1, max: 255 }), (at, xor) => {
				const mutated = p12.slice();
				mutated[at]! ^= xor;
				failure(() => parsePkcs12(mutated, "test-pass"));
			}),
			{ numRuns: 60 },
		);
	});
});

describe("readIdentity", () => {
	it("reads a PEM key and certificate", () => {
		expectAlice(readIdentity({ key: alice.keyPem, certificate: alice.certPem }));
		expectAlice(readIdentity({ key: new TextEncoder().encode(alice.keyPem), certificate: alice.certDer }));
	});

	it("reads a combined PEM (key and certificates in one file) and picks the matching certificate", () => {
		const identity = readIdentity({ key: `${bob.certPem}${alice.keyPem}${alice.certPem}` });
		expectAlice(identity);
		expect(identity.chain).toEqual([bob.certDer]);
	});

	it("reads an encrypted PEM key with its password", () => {
		const encrypted = openssl([
			"pkcs8",
			"-topk8",
			"-v2",
			"aes-256-cbc",
			"-in",
			alice.keyPath,
			"-passout",
			"pass:secret",
		]).toString();
		expectAlice(readIdentity({ key: encrypted, certificate: alice.certPem, password: "secret" }));
		expect(failure(() => readIdentity({ key: encrypted, certificate: alice.certPem })).code).toBe("INVALID_KEY");
		expect(failure(() => readIdentity({ key: encrypted, certificate: alice.certPem, password: "bad" })).code).toBe(
			"INVALID_KEY",
		);
	});

	it("reads PKCS#12", () => {
		expectAlice(readIdentity({ pkcs12: exportP12(), password: "test-pass" }));
	});

	it("a key that does not match the certificate: INVALID_KEY", () => {
		expect(failure(() => readIdentity({ key: alice.keyPem, certificate: bob.certPem })).code).toBe("INVALID_KEY");
		expect(failure(() => readIdentity({ key: "not a key", certificate: bob.certPem })).code).toBe("INVALID_KEY");
		expect(failure(() => readIdentity({ certificate: bob.certPem })).code).toBe("INVALID_KEY");
		expect(failure(() => readIdentity({ key: alice.keyPem, certificate: "junk" })).code).toBe("INVALID_CERTIFICATE");
	});
});
