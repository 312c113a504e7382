import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateSelfSigned } from "../certs/self-signed.ts";
import { keyMatchesCertificate, type PrivateKey } from "./keys.ts";

// keyMatchesCertificate confirms a false checkPrivateKey by comparing SPKIs (workerd answers
// false for matching pairs): that confirmation must still tell a stranger's key apart.
describe("keyMatchesCertificate", () => {
	it("matches the certificate's own key and not another RSA key", async () => {
		const identity = await generateSelfSigned({ commonName: "keys.example.com", days: 1 });
		const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey as PrivateKey;
		expect(keyMatchesCertificate(identity.privateKey, identity.certificate)).toBe(true);
		expect(keyMatchesCertificate(stranger, identity.certificate)).toBe(false);
	});
});
