import { describe, expect, it } from "vitest";
import { testIdentity } from "../../test/helpers/certs.ts";
import { openssl } from "../../test/helpers/openssl.ts";
import { isAs2Error } from "../errors/index.ts";
import { checkSigningKeySize, checkValidity, describeCertificate, isSigningKeySizeAllowed } from "./index.ts";

/** One `openssl x509` field, as printed (`name=value`). */
function field(certPath: string, option: string[], name: string): string {
	const out = openssl(["x509", "-in", certPath, "-noout", "-nameopt", "RFC2253", ...option]).toString();
	const line = out.split("\n").find((l) => l.toLowerCase().startsWith(name.toLowerCase())) ?? "";
	return line.slice(line.indexOf("=") + 1).trim();
}

/** `Nov 23 11:20:50 2026 GMT` */
function opensslDate(text: string): Date {
	return new Date(text);
}

describe("describeCertificate agrees with `openssl x509`", () => {
	for (const name of ["alice", "small", "pss", "expired"] as const) {
		it(name, () => {
			const id = testIdentity(name);
			const info = describeCertificate(id.certDer);
			const fingerprint = field(id.certPath, ["-fingerprint", "-sha256"], "sha256 fingerprint");
			expect(info.fingerprint).toBe(`SHA256:${fingerprint}`);
			expect(info.fingerprint).toMatch(/^SHA256:([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
			expect(info.serialNumber).toBe(field(id.certPath, ["-serial"], "serial"));
			expect(info.subject).toBe(field(id.certPath, ["-subject"], "subject"));
			expect(info.issuer).toBe(field(id.certPath, ["-issuer"], "issuer"));
			expect(info.notBefore).toEqual(opensslDate(field(id.certPath, ["-startdate"], "notBefore")));
			expect(info.notAfter).toEqual(opensslDate(field(id.certPath, ["-enddate"], "notAfter")));
			const text = openssl(["x509", "-in", id.certPath, "-noout", "-text"]).toString();
			expect(info.keyBits).toBe(Number(/Public-Key: \((\d+) bit\)/.exec(text)?.[1]));
			expect(info.keyAlgorithm).toBe(name === "pss" ? "rsa-pss" : "rsa");
			const ski = /Subject Key Identifier:\s*\n\s*([0-9A-F:]+)/.exec(text)?.[1];
			expect(info.subjectKeyIdentifier).toBe(ski);
			expect(info.pem).toBe(id.certPem.replace(/\r\n/g, "\n"));
		});
	}

	it("rejects what is not a certificate with INVALID_CERTIFICATE", () => {
		for (const junk of [
			new Uint8Array(0),
			new Uint8Array([0x30, 0x00]),
			testIdentity("alice").certDer.subarray(0, 100),
		]) {
			expect(() => describeCertificate(junk)).toThrow(expect.objectContaining({ code: "INVALID_CERTIFICATE" }));
		}
	});
});

describe("checkValidity", () => {
	const expired = testIdentity("expired");
	it("throws CERTIFICATE_EXPIRED with not_before and not_after outside the validity", () => {
		let caught: unknown;
		try {
			checkValidity(expired.certDer);
		} catch (error) {
			caught = error;
		}
		expect(isAs2Error(caught) && caught.code).toBe("CERTIFICATE_EXPIRED");
		expect(isAs2Error(caught) && caught.details).toMatchObject({
			not_before: "2001-01-01T00:00:00.000Z",
			not_after: "2002-01-01T00:00:00.000Z",
		});
		expect(() => checkValidity(expired.certDer, new Date("2000-12-31T23:59:59Z"))).toThrow(/not valid before/);
	});

	it("accepts a time inside the validity, bounds included", () => {
		checkValidity(expired.certDer, new Date("2001-06-01T00:00:00Z"));
		checkValidity(expired.certDer, new Date("2001-01-01T00:00:00Z"));
		checkValidity(expired.certDer, new Date("2002-01-01T00:00:00Z"));
		checkValidity(testIdentity("alice").certDer);
	});
});

describe("signing key sizes (interface spec, Limits)", () => {
	it.each([
		["sha1", 1024, true],
		["sha1", 1023, false],
		["sha256", 2048, true],
		["sha256", 1024, false],
		["sha384", 2047, false],
		["sha512", 4096, true],
	] as const)("%s with %i bits: %s", (digest, bits, allowed) => {
		expect(isSigningKeySizeAllowed(digest, bits)).toBe(allowed);
		if (allowed) checkSigningKeySize(digest, bits);
		else {
			expect(() => checkSigningKeySize(digest, bits)).toThrow(expect.objectContaining({ code: "SIGNING_FAILED" }));
			expect(() => checkSigningKeySize(digest, bits, "validate")).toThrow(
				expect.objectContaining({ code: "UNSUPPORTED_ALGORITHM" }),
			);
		}
	});
});
