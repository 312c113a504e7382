import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testIdentity } from "../../test/helpers/certs.ts";
import { cpuStopwatch } from "../../test/helpers/cpu-time.ts";
import { settlesWithinMicrotasks } from "../../test/helpers/microtasks.ts";
import { openssl, opensslVerifyDetached, scratch } from "../../test/helpers/openssl.ts";
import { DIGEST_ALGORITHMS, type DigestAlgorithm } from "../algorithms.ts";
import { readCertificateFields } from "../certs/certificate-fields.ts";
import { der, derOctetString, derOid, derSmallInteger, encodeDer } from "../certs/der-writer.ts";
import { id_data, id_signedData } from "../certs/oids.ts";
import { digestBytes, importPrivateKey, type PrivateKey, signBytes } from "../crypto/index.ts";
import { isAs2Error } from "../errors/index.ts";
import { digestAlgorithmIdentifier, signatureAlgorithmIdentifier } from "./signed-algorithms.ts";
import { encodeSignedAttributes } from "./signed-attributes.ts";
import {
	createDetachedSigner,
	inspectSignedData,
	type SignOptions,
	signBufferedDetachedAsync,
	signDetached,
	verifyDetached,
} from "./signed-data.ts";

const alice = testIdentity("alice");
const bob = testIdentity("bob");
const expired = testIdentity("expired");
const small = testIdentity("small");
const pss = testIdentity("pss");
const aliceKey = importPrivateKey(alice.keyPem);

const content = new TextEncoder().encode(
	"Content-Type: application/edi-x12\r\n\r\nISA*00*          *00*          *ZZ*ALICE~\r\nIEA*1*000000001~\r\n",
);
const allDigests = (a: DigestAlgorithm) => digestBytes(a, content);

let dir: ReturnType<typeof scratch>;
let contentPath: string;
beforeAll(() => {
	dir = scratch("as2kit-signed-");
	contentPath = dir.file("content.bin", content);
});
afterAll(() => dir.cleanup());

function signer(extra: Partial<SignOptions> = {}): SignOptions {
	return { privateKey: aliceKey, certificate: alice.certDer, digest: "sha256", ...extra };
}

function code(fn: () => unknown): string {
	try {
		fn();
	} catch (error) {
		return isAs2Error(error) ? error.code : `foreign: ${String(error)}`;
	}
	return "no error";
}

/** `openssl cms -verify` of our DER; throws (failing the test) when OpenSSL rejects it. */
function opensslVerifies(p7s: Uint8Array, caPath = alice.certPath, data = contentPath): void {
	const name = Math.random().toString(36).slice(2);
	opensslVerifyDetached({
		signaturePath: dir.file(`sig-${name}.der`, p7s),
		contentPath: data,
		caPath,
		outPath: dir.file(`out-${name}`),
	});
}

/** `openssl cms -sign` over the content; the DER comes back on stdout. */
function opensslSign(args: string[], signerPaths = alice): Uint8Array {
	return new Uint8Array(
		openssl([
			"cms",
			"-sign",
			"-binary",
			"-outform",
			"DER",
			"-signer",
			signerPaths.certPath,
			"-inkey",
			signerPaths.keyPath,
			"-in",
			contentPath,
			...args,
		]),
	);
}

describe("signing: OpenSSL verifies what we sign", () => {
	const variants = [
		{ name: "signed attributes + RFC 6211", opts: {} },
		{ name: "signed attributes, no RFC 6211 (Sterling/DataPower)", opts: { algorithmProtection: false } },
		{ name: "no signed attributes", opts: { signedAttributes: false } },
	];
	for (const digest of DIGEST_ALGORITHMS) {
		for (const scheme of ["pkcs1", "pss"] as const) {
			for (const variant of variants) {
				it(`${digest} ${scheme}: ${variant.name}`, () => {
					const s = createDetachedSigner(signer({ digest, scheme, ...variant.opts }));
					const announced = s.size;
					// Streamed in uneven chunks.
					for (let i = 0; i < content.byteLength; i += 7) s.update(content.subarray(i, i + 7));
					const p7s = s.finish();
					expect(p7s.byteLength).toBe(announced);
					expect(s.contentDigest()).toEqual(digestBytes(digest, content));
					opensslVerifies(p7s);
					const info = verifyDetached(p7s, allDigests, { trustedCertificates: [alice.certDer] });
					expect(info).toMatchObject({ digest, scheme, hasSignedAttributes: variant.opts.signedAttributes !== false });
				});
			}
		}
	}

	it("includes the RFC 6211 attribute only when asked (openssl cms -cmsout -print)", () => {
		const print = (p7s: Uint8Array) =>
			openssl(["cms", "-cmsout", "-print", "-inform", "DER", "-in", dir.file("print.der", p7s)]).toString();
		const on = print(signDetached(content, signer()));
		const off = print(signDetached(content, signer({ algorithmProtection: false })));
		const none = print(signDetached(content, signer({ signedAttributes: false })));
		expect(on).toMatch(/1\.2\.840\.113549\.1\.9\.52|CMSAlgorithmProtection/i);
		expect(off).not.toMatch(/1\.2\.840\.113549\.1\.9\.52|CMSAlgorithmProtection/i);
		expect(off).toMatch(/messageDigest/);
		expect(none).toMatch(/signedAttrs:\s*<ABSENT>|signedAttrs:\s*<EMPTY>/);
		expect(on).toMatch(/sha256WithRSAEncryption/);
		expect(on).toMatch(/eContent: <ABSENT>/);
	});

	it("size is exact with a chain, a PSS key and a GeneralizedTime signing time", () => {
		for (const opts of [
			signer({ chain: [bob.certDer, alice.certDer] }),
			{ privateKey: importPrivateKey(pss.keyPem), certificate: pss.certDer, digest: "sha384" as const },
			signer({ signingTime: new Date("2051-03-04T05:06:07Z") }),
			signer({ signingTime: new Date("1949-12-31T23:59:59Z"), digest: "sha1", signedAttributes: true }),
		]) {
			const s = createDetachedSigner(opts);
			s.update(content);
			expect(s.finish().byteLength).toBe(s.size);
		}
		const chained = signDetached(content, signer({ chain: [bob.certDer] }));
		expect(inspectSignedData(chained).certificates).toHaveLength(2);
	});

	it("signs with an RSA-PSS key (PSS implied) that OpenSSL verifies", () => {
		const p7s = signDetached(content, {
			privateKey: importPrivateKey(pss.keyPem),
			certificate: pss.certDer,
			digest: "sha256",
		});
		opensslVerifies(p7s, pss.certPath);
		expect(verifyDetached(p7s, allDigests, { trustedCertificates: [pss.certDer] }).scheme).toBe("pss");
		const bare = signDetached(content, {
			privateKey: importPrivateKey(pss.keyPem),
			certificate: pss.certDer,
			digest: "sha512",
			signedAttributes: false,
		});
		opensslVerifies(bare, pss.certPath);
		expect(verifyDetached(bare, allDigests, { trustedCertificates: [pss.certDer] })).toMatchObject({
			scheme: "pss",
			digest: "sha512",
		});
		expect(
			code(() =>
				signDetached(content, {
					privateKey: importPrivateKey(pss.keyPem),
					certificate: pss.certDer,
					digest: "sha256",
					scheme: "pkcs1",
				}),
			),
		).toBe("SIGNING_FAILED");
	});

	it("refuses keys too small for the digest (interface spec, Signature key sizes) and foreign keys", () => {
		const smallKey = importPrivateKey(small.keyPem);
		expect(
			code(() => createDetachedSigner({ privateKey: smallKey, certificate: small.certDer, digest: "sha256" })),
		).toBe("SIGNING_FAILED");
		const sha1 = signDetached(content, { privateKey: smallKey, certificate: small.certDer, digest: "sha1" });
		opensslVerifies(sha1, small.certPath);
		expect(code(() => createDetachedSigner(signer({ certificate: bob.certDer })))).toBe("SIGNING_FAILED");
		expect(code(() => createDetachedSigner(signer({ certificate: new Uint8Array([0x30, 0x03, 1, 2, 3]) })))).toBe(
			"SIGNING_FAILED",
		);
	});

	it("rejects update() after finish() and contentDigest() before it", () => {
		const s = createDetachedSigner(signer());
		expect(code(() => s.contentDigest())).toBe("SIGNING_FAILED");
		s.finish();
		expect(code(() => s.update(content))).toBe("SIGNING_FAILED");
		expect(code(() => s.finish())).toBe("SIGNING_FAILED");
	});
});

describe("signing a buffered content in the thread pool", () => {
	const variants = [
		{ name: "signed attributes + RFC 6211", opts: {} },
		{ name: "no signed attributes", opts: { signedAttributes: false } },
	];
	for (const scheme of ["pkcs1", "pss"] as const) {
		for (const variant of variants) {
			it(`${scheme}, ${variant.name}: OpenSSL verifies it, and PKCS#1 v1.5 is the synchronous signer's bytes`, async () => {
				const opts = signer({ scheme, signingTime: new Date("2026-11-29T04:30:00Z"), ...variant.opts });
				const { der: p7s, contentDigest } = await signBufferedDetachedAsync(content, opts);
				expect(contentDigest).toEqual(digestBytes("sha256", content));
				opensslVerifies(p7s);
				expect(verifyDetached(p7s, allDigests, { trustedCertificates: [alice.certDer] })).toMatchObject({
					scheme,
					hasSignedAttributes: variant.opts.signedAttributes !== false,
				});
				// PKCS#1 v1.5 is deterministic; PSS has a random salt.
				if (scheme === "pkcs1") expect(p7s).toEqual(signDetached(content, opts));
			});
		}
	}

	it("gives the event loop back while it signs: no number of microtasks settles it", async () => {
		expect(await settlesWithinMicrotasks(signBufferedDetachedAsync(content, signer()))).toBe(false);
	});

	it("finishes a streamed signature in the pool with signed attributes, in the loop without: finish()'s bytes either way", async () => {
		const streamed = (extra: Partial<SignOptions>) => {
			const s = createDetachedSigner(signer({ signingTime: new Date("2026-11-29T06:00:00Z"), ...extra }));
			for (let i = 0; i < content.byteLength; i += 7) s.update(content.subarray(i, i + 7));
			return s;
		};
		for (const extra of [{}, { signedAttributes: false }]) {
			const s = streamed(extra);
			const finishing = s.finishAsync();
			const inPool = extra.signedAttributes !== false;
			expect(await settlesWithinMicrotasks(finishing), JSON.stringify(extra)).toBe(!inPool);
			const p7s = await finishing;
			expect(p7s).toEqual(streamed(extra).finish());
			expect(p7s.byteLength).toBe(s.size);
			expect(s.contentDigest()).toEqual(digestBytes("sha256", content));
			opensslVerifies(p7s);
			await expect(s.finishAsync()).rejects.toMatchObject({ code: "SIGNING_FAILED" });
		}
	});

	it("refuses what the synchronous signer refuses, as a rejection with its code", async () => {
		const smallKey = importPrivateKey(small.keyPem);
		await expect(
			signBufferedDetachedAsync(content, { privateKey: smallKey, certificate: small.certDer, digest: "sha256" }),
		).rejects.toMatchObject({ code: "SIGNING_FAILED" });
		await expect(signBufferedDetachedAsync(content, signer({ certificate: bob.certDer }))).rejects.toMatchObject({
			code: "SIGNING_FAILED",
		});
	});
});

describe("verifying: we verify what OpenSSL signs", () => {
	const variants: Array<{ name: string; args: string[]; attrs: boolean; scheme: "pkcs1" | "pss"; certs?: boolean }> = [
		{ name: "default", args: [], attrs: true, scheme: "pkcs1" },
		{ name: "-noattr", args: ["-noattr"], attrs: false, scheme: "pkcs1" },
		{ name: "-stream (BER, indefinite lengths)", args: ["-stream"], attrs: true, scheme: "pkcs1" },
		{ name: "-nocerts", args: ["-nocerts"], attrs: true, scheme: "pkcs1", certs: false },
		{ name: "PSS", args: ["-keyopt", "rsa_padding_mode:pss"], attrs: true, scheme: "pss" },
		{ name: "PSS -noattr", args: ["-keyopt", "rsa_padding_mode:pss", "-noattr"], attrs: false, scheme: "pss" },
		{
			name: "PSS salt = hash length",
			args: ["-keyopt", "rsa_padding_mode:pss", "-keyopt", "rsa_pss_saltlen:digest"],
			attrs: true,
			scheme: "pss",
		},
	];
	for (const digest of DIGEST_ALGORITHMS) {
		for (const variant of variants) {
			it(`${digest} ${variant.name}`, () => {
				const p7s = opensslSign(["-md", digest, ...variant.args]);
				const inspected = inspectSignedData(p7s);
				expect(inspected).toMatchObject({ digest, scheme: variant.scheme, hasSignedAttributes: variant.attrs });
				expect(inspected.certificates).toHaveLength(variant.certs === false ? 0 : 1);
				const info = verifyDetached(p7s, allDigests, { trustedCertificates: [bob.certDer, alice.certDer] });
				expect(info.signerCertificate).toEqual(alice.certDer);
				if (variant.attrs) expect(info.signingTime).toBeInstanceOf(Date);
				if (variant.certs !== false) {
					// Without trusted certificates the embedded one is used.
					expect(verifyDetached(p7s, allDigests).digest).toBe(digest);
				}
				const tampered = content.slice();
				tampered[10]! ^= 1;
				expect(
					code(() => verifyDetached(p7s, (a) => digestBytes(a, tampered), { trustedCertificates: [alice.certDer] })),
				).toBe("INTEGRITY_CHECK_FAILED");
			});
		}
	}

	it("reads the content of an attached (-nodetach) signature", () => {
		const p7s = opensslSign(["-md", "sha256", "-nodetach"]);
		expect(inspectSignedData(p7s).encapsulatedContent).toEqual(content);
	});
});

describe("verification failures", () => {
	const p7s = signDetached(content, signer());
	const noAttrs = signDetached(content, signer({ signedAttributes: false }));
	const pssNoAttrs = signDetached(content, signer({ signedAttributes: false, scheme: "pss" }));
	const tampered = content.slice();
	tampered[0]! ^= 0x20;

	it("tampered content: INTEGRITY_CHECK_FAILED, with and without signed attributes", () => {
		for (const sig of [p7s, noAttrs, pssNoAttrs]) {
			expect(
				code(() => verifyDetached(sig, (a) => digestBytes(a, tampered), { trustedCertificates: [alice.certDer] })),
			).toBe("INTEGRITY_CHECK_FAILED");
		}
	});

	it("signer not among the trusted certificates: AUTHENTICATION_FAILED", () => {
		for (const sig of [p7s, noAttrs, pssNoAttrs]) {
			expect(code(() => verifyDetached(sig, allDigests, { trustedCertificates: [bob.certDer] }))).toBe(
				"AUTHENTICATION_FAILED",
			);
		}
		// -nocerts: no embedded certificate, every trusted one is tried and none verifies.
		const bare = opensslSign(["-md", "sha256", "-nocerts"]);
		expect(code(() => verifyDetached(bare, allDigests, { trustedCertificates: [bob.certDer] }))).toBe(
			"AUTHENTICATION_FAILED",
		);
		expect(code(() => verifyDetached(bare, allDigests))).toBe("AUTHENTICATION_FAILED");
	});

	it("a signature by another key under the right certificate: AUTHENTICATION_FAILED", () => {
		// bob's key, alice's certificate inside: the sid names alice, the signature is bob's.
		const forged = forge({ key: importPrivateKey(bob.keyPem), certificate: alice.certDer });
		expect(code(() => verifyDetached(forged, allDigests, { trustedCertificates: [alice.certDer] }))).toBe(
			"AUTHENTICATION_FAILED",
		);
	});

	it("digest not computed: AUTHENTICATION_FAILED saying so", () => {
		let message = "";
		try {
			verifyDetached(p7s, (a) => (a === "sha1" ? digestBytes(a, content) : undefined), {
				trustedCertificates: [alice.certDer],
			});
		} catch (error) {
			expect(isAs2Error(error) && error.code).toBe("AUTHENTICATION_FAILED");
			message = (error as Error).message;
		}
		expect(message).toMatch(/digest not computed/);
	});

	it("expired signer: CERTIFICATE_EXPIRED; accepted at a time inside its validity", () => {
		const old = signDetached(content, {
			privateKey: importPrivateKey(expired.keyPem),
			certificate: expired.certDer,
			digest: "sha256",
		});
		expect(code(() => verifyDetached(old, allDigests, { trustedCertificates: [expired.certDer] }))).toBe(
			"CERTIFICATE_EXPIRED",
		);
		const at = new Date("2001-06-01T00:00:00Z");
		expect(verifyDetached(old, allDigests, { trustedCertificates: [expired.certDer], at }).digest).toBe("sha256");
		expect(
			verifyDetached(old, allDigests, { trustedCertificates: [expired.certDer], checkValidity: false }).digest,
		).toBe("sha256");
		expect(code(() => verifyDetached(p7s, allDigests, { trustedCertificates: [alice.certDer], at }))).toBe(
			"CERTIFICATE_EXPIRED",
		);
	});

	it("garbage: MALFORMED_CMS, never a crash", () => {
		for (const junk of [
			new Uint8Array(0),
			new Uint8Array([0x30]),
			new Uint8Array([0x30, 0x80]),
			new Uint8Array([0x04, 0x02, 0x41, 0x42]),
			new TextEncoder().encode("-----BEGIN PKCS7-----\nnot der\n-----END PKCS7-----"),
			p7s.subarray(0, p7s.byteLength - 10),
			p7s.subarray(0, 40),
		]) {
			expect(code(() => verifyDetached(junk, allDigests))).toBe("MALFORMED_CMS");
			expect(code(() => inspectSignedData(junk))).toBe("MALFORMED_CMS");
		}
		// A deep indefinite-length nest does not blow the stack.
		const bomb = new Uint8Array(200_000).fill(0x30);
		for (let i = 1; i < bomb.byteLength; i += 2) bomb[i] = 0x80;
		expect(code(() => inspectSignedData(bomb))).toBe("MALFORMED_CMS");
	});

	it("never modifies its input, even a Node Buffer (whose slice() is a view)", () => {
		for (const sig of [p7s, opensslSign(["-md", "sha256", "-stream"])]) {
			const buffer = Buffer.from(sig);
			verifyDetached(buffer, allDigests, { trustedCertificates: [alice.certDer] });
			inspectSignedData(buffer);
			expect(new Uint8Array(buffer)).toEqual(sig);
		}
	});

	it("mutated signatures only ever fail with As2Errors (property)", () => {
		fc.assert(
			fc.property(fc.integer({ min: 0, max: p7s.byteLength - 1 }), fc.integer({ min: 1, max: 255 }), (at, xor) => {
				const mutated = p7s.slice();
				mutated[at]! ^= xor;
				try {
					verifyDetached(mutated, allDigests, { trustedCertificates: [alice.certDer] });
				} catch (error) {
					if (!isAs2Error(error)) throw error;
				}
			}),
			{ numRuns: 300 },
		);
	});
});

describe("tolerance (vendor quirks)", () => {
	it("a re-issued certificate on the same key is accepted by public key", () => {
		const reissuedPath = dir.file("reissued.pem");
		openssl([
			"req",
			"-new",
			"-x509",
			"-key",
			alice.keyPath,
			"-subj",
			"/CN=alice-renewed.as2kit.test",
			"-days",
			"30",
			"-out",
			reissuedPath,
		]);
		const reissued = new Uint8Array(openssl(["x509", "-in", reissuedPath, "-outform", "DER"]));
		const p7s = signDetached(content, signer());
		const info = verifyDetached(p7s, allDigests, { trustedCertificates: [bob.certDer, reissued] });
		expect(info.signerCertificate).toEqual(reissued);
	});

	it("signed attributes are verified as received, not re-serialized (non-minimal length)", () => {
		// A long-form length where DER wants the short form: re-encoding would change the signed bytes.
		const forged = forge({ key: aliceKey, certificate: alice.certDer, longFormAttributes: true });
		expect(verifyDetached(forged, allDigests, { trustedCertificates: [alice.certDer] }).hasSignedAttributes).toBe(true);
	});

	it("an RFC 6211 attribute that contradicts the SignerInfo: AUTHENTICATION_FAILED", () => {
		const forged = forge({ key: aliceKey, certificate: alice.certDer, protectAs: "pss" });
		expect(code(() => verifyDetached(forged, allDigests, { trustedCertificates: [alice.certDer] }))).toBe(
			"AUTHENTICATION_FAILED",
		);
	});

	it("a subjectKeyIdentifier signer identifier (CMS v3, -keyid)", () => {
		const p7s = opensslSign(["-md", "sha256", "-keyid"]);
		expect(verifyDetached(p7s, allDigests, { trustedCertificates: [alice.certDer] }).signerCertificate).toEqual(
			alice.certDer,
		);
	});
});

describe("performance", () => {
	it("signs and verifies small messages fast (no certificate re-parsing per message)", () => {
		const opts = signer();
		const trusted = { trustedCertificates: [alice.certDer] };
		signDetached(content, opts);
		const n = 200;
		const cpuMs = cpuStopwatch();
		for (let i = 0; i < n; i++) {
			const p7s = signDetached(content, opts);
			verifyDetached(p7s, allDigests, trusted);
		}
		const perPair = cpuMs() / n;
		// One RSA-2048 private operation dominates (~0.3-1 ms); our own overhead must stay small.
		expect(perPair).toBeLessThan(5);
	});
});

/** Builds a SignedData by hand, to exercise encodings our signer never produces. */
function forge(o: {
	key: PrivateKey;
	certificate: Uint8Array;
	longFormAttributes?: boolean;
	protectAs?: "pkcs1" | "pss";
}): Uint8Array {
	const fields = readCertificateFields(o.certificate);
	const set = encodeSignedAttributes({
		messageDigest: digestBytes("sha256", content),
		signingTime: new Date(),
		algorithmProtection: {
			digestAlgorithm: digestAlgorithmIdentifier("sha256"),
			signatureAlgorithm: signatureAlgorithmIdentifier("sha256", o.protectAs ?? "pkcs1"),
		},
	});
	let signed = set;
	if (o.longFormAttributes) {
		const body = set.subarray(set[1]! & 0x80 ? 2 + (set[1]! & 0x7f) : 2);
		signed = new Uint8Array([0x31, 0x82, body.byteLength >> 8, body.byteLength & 0xff, ...body]);
	}
	const signature = signBytes(o.key, { digest: "sha256", scheme: "pkcs1" }, signed);
	const implicit = signed.slice();
	implicit[0] = 0xa0;
	const signerInfo = der(
		0x30,
		derSmallInteger(1),
		der(0x30, fields.issuer, fields.serialTlv),
		digestAlgorithmIdentifier("sha256"),
		implicit,
		signatureAlgorithmIdentifier("sha256", "pkcs1"),
		derOctetString(signature),
	);
	const signedData = der(
		0x30,
		derSmallInteger(1),
		der(0x31, digestAlgorithmIdentifier("sha256")),
		der(0x30, derOid(id_data)),
		der(0xa0, o.certificate),
		der(0x31, signerInfo),
	);
	return encodeDer(der(0x30, derOid(id_signedData), der(0xa0, signedData)));
}
