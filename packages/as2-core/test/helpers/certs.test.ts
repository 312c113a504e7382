import { describe, expect, it } from "vitest";
import { testIdentity } from "./certs.ts";
import { openssl } from "./openssl.ts";

describe("test identities", () => {
	it("makes a current and an expired certificate with the OpenSSL CLI", () => {
		const alice = testIdentity("alice");
		expect(alice.certPem).toContain("BEGIN CERTIFICATE");
		const expired = testIdentity("expired");
		const text = openssl(["x509", "-in", expired.certPath, "-noout", "-enddate"]).toString();
		expect(text).toContain("2002");
	});
});
