import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importPrivateKey } from "../../src/crypto/index.ts";
import { type TestIdentity, testIdentity } from "../helpers/certs.ts";
import { firstPart, param, splitEntity } from "../helpers/mime-text.ts";
import { openssl, scratch } from "../helpers/openssl.ts";
import { unpackBothWays } from "../helpers/paths.ts";

/**
 * Legacy partners (issue #2): AS2 messages whose content is encrypted with RC2 (RFC 3370
 * §5.2), made by `openssl cms -encrypt -rc2-40|-rc2-64|-rc2-128` with OpenSSL 3's legacy
 * provider, read by unpack() on both its readers. The provider must be there: without it
 * these tests fail (the OpenSSL helper throws), they never skip.
 */

const LEGACY = ["-provider", "legacy", "-provider", "default"];
const PAYLOAD = Buffer.concat([
	Buffer.from("UNB+UNOA:2+SENDER+RECEIVER'\r\n"),
	randomBytes(3000),
	Buffer.from("UNZ+1'\n"),
]);

let alice: TestIdentity;
let bob: TestIdentity;
const work = scratch("as2kit-rc2-");

beforeAll(() => {
	alice = testIdentity("alice");
	bob = testIdentity("bob");
});
afterAll(() => work.cleanup());

describe("OpenSSL's legacy provider", () => {
	it("is available to the OpenSSL CLI (needed to make RC2 messages)", () => {
		const providers = openssl(["list", "-providers", ...LEGACY]).toString();
		expect(providers).toMatch(/legacy[\s\S]*status: active/);
	});
});

const CASES = (["-rc2-40", "-rc2-64", "-rc2-128"] as const).flatMap((cipher) =>
	[false, true].flatMap((signed) =>
		[false, true].map((stream) => ({ cipher, signed, stream, base64: signed !== stream })),
	),
);

describe("OpenSSL encrypts with RC2, as2-core reads", () => {
	it.each(CASES)("%s", async (c) => {
		let entity = Buffer.concat([
			Buffer.from("Content-Type: application/edifact\r\nContent-Transfer-Encoding: binary\r\n\r\n"),
			PAYLOAD,
		]);
		let signedPart: Buffer | undefined;
		if (c.signed) {
			const out = openssl([
				"cms",
				"-sign",
				"-binary",
				"-in",
				work.file("in", entity),
				"-signer",
				alice.certPath,
				"-inkey",
				alice.keyPath,
				"-md",
				"sha256",
				"-outform",
				"SMIME",
				"-crlfeol",
			]);
			const e = splitEntity(out);
			const type = e.headers.get("content-type")!;
			signedPart = firstPart(e.body, param(type, "boundary")!);
			entity = Buffer.concat([Buffer.from(`Content-Type: ${type}\r\n\r\n`), e.body]);
		}
		const der = openssl([
			"cms",
			"-encrypt",
			"-binary",
			"-in",
			work.file("plain", entity),
			"-outform",
			"DER",
			...LEGACY,
			c.cipher,
			...(c.stream ? ["-stream"] : []),
			bob.certPath,
		]);
		const body = c.base64 ? Buffer.from(der.toString("base64").replace(/.{1,64}/g, "$&\r\n")) : der;
		const outcome = await unpackBothWays(
			{
				headers: {
					"AS2-Version": "1.0",
					"AS2-From": "LEGACY",
					"AS2-To": "BOB",
					"Message-ID": "<rc2-1@legacy.example>",
					"Disposition-Notification-To": "legacy@example.com",
					"Disposition-Notification-Options":
						"signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256",
					"Content-Type": 'application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"',
					"Content-Transfer-Encoding": c.base64 ? "base64" : "binary",
				},
				identities: [{ privateKey: importPrivateKey(bob.keyPem), certificate: bob.certDer }],
				partnerCertificates: [alice.certDer],
			},
			new Uint8Array(body),
		);
		expect(outcome).toMatchObject({ ok: true, payload: PAYLOAD.toString("hex"), contentType: "application/edifact" });
		if (!outcome.ok) return;
		expect(outcome.layers).toContainEqual({
			kind: "encrypted",
			container: "enveloped-data",
			algorithm: "rc2",
			keyEncryption: "rsa",
		});
		// RFC 4130 §7.3.1: the MIC covers the signed part, or else the decrypted entity.
		const mic = createHash("sha256")
			.update(signedPart ?? entity)
			.digest("base64");
		expect(outcome.report).toMatchObject({ mic: { value: mic, algorithm: "sha256" } });
	});
});
