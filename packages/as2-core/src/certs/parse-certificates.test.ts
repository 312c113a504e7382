import { afterAll, describe, expect, it } from "vitest";
import { testIdentity } from "../../test/helpers/certs.ts";
import { openssl, scratch } from "../../test/helpers/openssl.ts";
import { parseCertificates } from "./index.ts";

const alice = testIdentity("alice");
const bob = testIdentity("bob");
const dir = scratch("as2kit-certs-");
afterAll(() => dir.cleanup());

describe("parseCertificates", () => {
	it("reads one PEM certificate, as a string or as bytes", () => {
		expect(parseCertificates(alice.certPem)).toEqual([alice.certDer]);
		expect(parseCertificates(new TextEncoder().encode(alice.certPem))).toEqual([alice.certDer]);
	});

	it("reads several PEM certificates among other text (OpenSSL bag attributes, CRLF)", () => {
		const text = `Bag Attributes\n    friendlyName: alice\nsubject=CN=alice\r\n${alice.certPem.replace(/\n/g, "\r\n")}\nsome words\n${bob.certPem}\n-- \nsignature`;
		expect(parseCertificates(text)).toEqual([alice.certDer, bob.certDer]);
	});

	it("reads DER, one or concatenated", () => {
		expect(parseCertificates(alice.certDer)).toEqual([alice.certDer]);
		expect(parseCertificates(new Uint8Array([...alice.certDer, ...bob.certDer]))).toEqual([alice.certDer, bob.certDer]);
	});

	it("reads .p7b bundles from `openssl crl2pkcs7 -nocrl` in PEM and DER (pyas2#37)", () => {
		const args = ["crl2pkcs7", "-nocrl", "-certfile", alice.certPath, "-certfile", bob.certPath];
		const pem = openssl(args).toString();
		expect(pem).toContain("-----BEGIN PKCS7-----");
		const certs = parseCertificates(pem);
		expect(certs).toHaveLength(2);
		expect(certs).toContainEqual(alice.certDer);
		expect(certs).toContainEqual(bob.certDer);
		const der = new Uint8Array(openssl([...args, "-outform", "DER"]));
		expect(parseCertificates(der)).toEqual(certs);
	});

	it("reads a BER (indefinite length) PKCS#7 structure", () => {
		const data = dir.file("data.txt", "x");
		const ber = new Uint8Array(
			openssl([
				"cms",
				"-sign",
				"-stream",
				"-outform",
				"DER",
				"-in",
				data,
				"-signer",
				alice.certPath,
				"-inkey",
				alice.keyPath,
			]),
		);
		expect(ber[1]).toBe(0x80);
		expect(parseCertificates(ber)).toEqual([alice.certDer]);
	});

	it("accepts OpenSSL TRUSTED CERTIFICATE blocks", () => {
		const trusted = openssl(["x509", "-in", alice.certPath, "-trustout", "-addtrust", "emailProtection"]).toString();
		expect(trusted).toContain("BEGIN TRUSTED CERTIFICATE");
		expect(parseCertificates(trusted)).toEqual([alice.certDer]);
	});

	it("fails with INVALID_CERTIFICATE on anything else", () => {
		for (const input of [
			"",
			"hello",
			alice.keyPem,
			"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
			new Uint8Array(0),
			new Uint8Array([0x30, 0x82, 0xff, 0xff, 0x01]),
			alice.certDer.subarray(0, alice.certDer.byteLength - 1),
			new Uint8Array([...alice.certDer, 0x00]),
		]) {
			expect(() => parseCertificates(input)).toThrow(expect.objectContaining({ code: "INVALID_CERTIFICATE" }));
		}
	});

	it("says in words when the input is neither PEM nor DER, and when a DER certificate is damaged", () => {
		for (const input of ["hello", new TextEncoder().encode("hello\n"), new Uint8Array([0x68, 0x65, 0x6c])]) {
			expect(() => parseCertificates(input)).toThrow(/neither a PEM certificate .* nor a DER one/);
		}
		const truncated = alice.certDer.subarray(0, 100);
		expect(() => parseCertificates(truncated)).toThrow(/^the certificate is damaged or truncated \(/);
		expect(() => parseCertificates(truncated)).not.toThrow(/BER:/);
	});
});
