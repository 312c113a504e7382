import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { as2kit } from "./helpers/cli.ts";
import { scratch } from "./helpers/openssl.ts";

const work = scratch("as2kit-cli-");
const path = (name: string) => join(work.dir, name);

beforeAll(() => {
	expect(as2kit("keygen", "--name", "alice", "--out", work.dir).code).toBe(0);
	expect(as2kit("keygen", "--name", "bob", "--out", work.dir, "--bits", "3072", "--days", "30").code).toBe(0);
	writeFileSync(path("order.edi"), "UNA:+.? 'UNB+UNOC:3+ALICE+BOB'\nUNH+1+ORDERS:D:96A:UN'\r\n");
});
afterAll(() => work.cleanup());

describe("as2kit command line", () => {
	it("keygen writes a key and a certificate OpenSSL can read", () => {
		const text = execFileSync("openssl", ["x509", "-in", path("bob.cert.pem"), "-noout", "-text"]).toString();
		expect(text).toContain("CN = bob");
		expect(text).toContain("3072 bit");
	});

	it("round-trips build → parse → mdn → verify-mdn", () => {
		const built = as2kit(
			"build",
			"--payload",
			path("order.edi"),
			"--from",
			"ALICE",
			"--to",
			"BOB",
			"--sign",
			"sha256",
			"--key",
			path("alice.key.pem"),
			"--cert",
			path("alice.cert.pem"),
			"--encrypt",
			"aes256",
			"--recipient-cert",
			path("bob.cert.pem"),
			"--compress",
			"before-sign",
			"--mdn",
			"sync",
			"--signed-mdn",
			"sha256",
			"--content-type",
			"application/edifact",
			"--filename",
			"order.edi",
			"--out-headers",
			path("msg.headers"),
			"--out-body",
			path("msg.body"),
		);
		expect(built.code).toBe(0);
		expect(built.json.mic_algorithm).toBe("sha-256");
		expect(readFileSync(path("msg.headers"), "latin1")).toMatch(/^AS2-Version: 1\.0\r\n/);

		const parsed = as2kit(
			"parse",
			"--headers",
			path("msg.headers"),
			"--body",
			path("msg.body"),
			"--key",
			path("bob.key.pem"),
			"--cert",
			path("bob.cert.pem"),
			"--partner-cert",
			path("alice.cert.pem"),
			"--out-payload",
			path("received.edi"),
		);
		expect(parsed.code).toBe(0);
		expect(parsed.json).toMatchObject({
			message_id: built.json.message_id,
			from: "ALICE",
			to: "BOB",
			signed: true,
			encrypted: true,
			compressed: true,
			mic: built.json.mic,
			mic_algorithm: "sha-256",
			content_type: "application/edifact",
			filename: "order.edi",
			algorithms: { encryption: "aes256", signature: "sha256", compression: "zlib" },
			mdn: { mode: "sync", signed: true, mic_algorithms: ["sha-256"] },
		});
		expect(readFileSync(path("received.edi"))).toEqual(readFileSync(path("order.edi")));

		const mdn = as2kit(
			"mdn",
			"--headers",
			path("msg.headers"),
			"--body",
			path("msg.body"),
			"--key",
			path("bob.key.pem"),
			"--cert",
			path("bob.cert.pem"),
			"--partner-cert",
			path("alice.cert.pem"),
			"--out-headers",
			path("mdn.headers"),
			"--out-body",
			path("mdn.body"),
		);
		expect(mdn.code).toBe(0);
		expect(mdn.json).toMatchObject({ signed: true, disposition: "processed", mic: built.json.mic });

		const verified = as2kit(
			"verify-mdn",
			"--headers",
			path("mdn.headers"),
			"--body",
			path("mdn.body"),
			"--partner-cert",
			path("bob.cert.pem"),
			"--expect-mic",
			`${built.json.mic}, sha-256`,
		);
		expect(verified.code).toBe(0);
		expect(verified.json).toMatchObject({
			original_message_id: built.json.message_id,
			signature_valid: true,
			mic_matches: true,
			mic_algorithm: "sha-256",
		});
		expect(String(verified.json.disposition)).toMatch(/processed$/);

		const wrongSigner = as2kit(
			"verify-mdn",
			"--headers",
			path("mdn.headers"),
			"--body",
			path("mdn.body"),
			"--partner-cert",
			path("alice.cert.pem"),
			"--expect-mic",
			"AAAA, sha-256",
		);
		expect(wrongSigner.code).toBe(1);
		expect(wrongSigner.json).toMatchObject({ accepted: false, signature_valid: false, mic_matches: false });
	});

	it("reports a wrong decryption key as JSON with code and disposition, exit 1, no payload file", () => {
		as2kit(
			"build",
			"--payload",
			path("order.edi"),
			"--from",
			"ALICE",
			"--to",
			"BOB",
			"--encrypt",
			"3des",
			"--recipient-cert",
			path("bob.cert.pem"),
			"--out-headers",
			path("enc.headers"),
			"--out-body",
			path("enc.body"),
		);
		const failed = as2kit(
			"parse",
			"--headers",
			path("enc.headers"),
			"--body",
			path("enc.body"),
			"--key",
			path("alice.key.pem"),
			"--cert",
			path("alice.cert.pem"),
			"--out-payload",
			path("nothing.edi"),
		);
		expect(failed.code).toBe(1);
		expect(failed.json).toEqual({
			error: expect.objectContaining({ code: "DECRYPTION_FAILED", disposition: "processed/error: decryption-failed" }),
		});

		const negative = as2kit(
			"mdn",
			"--headers",
			path("enc.headers"),
			"--body",
			path("enc.body"),
			"--key",
			path("alice.key.pem"),
			"--cert",
			path("alice.cert.pem"),
			"--out-headers",
			path("neg.headers"),
			"--out-body",
			path("neg.body"),
		);
		expect(negative.json.disposition).toBe("processed/error: decryption-failed");
		expect(readFileSync(path("neg.body"), "latin1")).toContain(
			"Disposition: automatic-action/MDN-sent-automatically; processed/error: decryption-failed",
		);
	});

	it("reads a PKCS#12 key with --key-pass and uses OAEP and PSS", () => {
		execFileSync("openssl", [
			"pkcs12",
			"-export",
			"-inkey",
			path("alice.key.pem"),
			"-in",
			path("alice.cert.pem"),
			"-out",
			path("alice.p12"),
			"-passout",
			"pass:s3cret",
		]);
		const built = as2kit(
			"build",
			"--payload",
			path("order.edi"),
			"--from",
			"ALICE",
			"--to",
			"BOB",
			"--sign",
			"sha512-pss",
			"--key",
			path("alice.p12"),
			"--key-pass",
			"s3cret",
			"--encrypt",
			"aes128-gcm",
			"--key-encryption",
			"oaep",
			"--recipient-cert",
			path("bob.cert.pem"),
			"--out-headers",
			path("p.headers"),
			"--out-body",
			path("p.body"),
		);
		expect(built.code).toBe(0);
		const parsed = as2kit(
			"parse",
			"--headers",
			path("p.headers"),
			"--body",
			path("p.body"),
			"--key",
			path("bob.key.pem"),
			"--cert",
			path("bob.cert.pem"),
			"--partner-cert",
			path("alice.cert.pem"),
			"--out-payload",
			path("p.edi"),
		);
		expect(parsed.json).toMatchObject({
			algorithms: { encryption: "aes128-gcm", key_encryption: "oaep", signature: "sha512", signature_scheme: "pss" },
			mic: built.json.mic,
		});
	});

	// issue #17 defect 2: `--key-encryption oaep` must be RFC 3560's defaults (SHA-1,
	// MGF1-SHA-1), what `openssl cms -keyopt rsa_padding_mode:oaep` writes; oaep-sha256 …
	// that hash for OAEP and MGF1. Each is read back by `openssl cms -decrypt` and by `parse`.
	it("--key-encryption oaep, oaep-sha256, oaep-sha384, oaep-sha512: OpenSSL decrypts each, parse names it", () => {
		for (const [name, hash] of [
			["oaep", undefined],
			["oaep-sha256", "sha256"],
			["oaep-sha384", "sha384"],
			["oaep-sha512", "sha512"],
		] as const) {
			const built = as2kit(
				"build",
				"--payload",
				path("order.edi"),
				"--from",
				"ALICE",
				"--to",
				"BOB",
				"--encrypt",
				"aes128",
				"--key-encryption",
				name,
				"--recipient-cert",
				path("bob.cert.pem"),
				"--out-headers",
				path("k.headers"),
				"--out-body",
				path("k.body"),
			);
			expect(built.code).toBe(0);
			const printed = execFileSync("openssl", ["cms", "-cmsout", "-print", "-inform", "DER", "-in", path("k.body")])
				.toString()
				.replace(/\s+/g, " ");
			const algorithm = /keyEncryptionAlgorithm:(.*?)encryptedKey:/.exec(printed)?.[1] ?? "";
			expect(algorithm).toContain("rsaesOaep");
			if (hash) expect(algorithm).toMatch(new RegExp(`OBJECT :${hash} .*OBJECT :mgf1 .*OBJECT :${hash} `));
			else expect(algorithm).toMatch(/parameter: SEQUENCE: 0:d=0 hl=2 l= 0 cons: SEQUENCE $/);
			const decrypted = execFileSync("openssl", [
				"cms",
				"-decrypt",
				"-binary",
				"-inform",
				"DER",
				"-in",
				path("k.body"),
				"-inkey",
				path("bob.key.pem"),
				"-recip",
				path("bob.cert.pem"),
			]);
			expect(decrypted.toString("latin1")).toContain("UNH+1+ORDERS");
			const parsed = as2kit(
				"parse",
				"--headers",
				path("k.headers"),
				"--body",
				path("k.body"),
				"--key",
				path("bob.key.pem"),
				"--cert",
				path("bob.cert.pem"),
				"--out-payload",
				path("k.edi"),
			);
			expect(parsed.json).toMatchObject({ algorithms: { key_encryption: name } });
		}
		const refused = as2kit(
			"build",
			"--payload",
			path("order.edi"),
			"--from",
			"A",
			"--to",
			"B",
			"--encrypt",
			"aes128",
			"--key-encryption",
			"oaep-md5",
			"--recipient-cert",
			path("bob.cert.pem"),
			"--out-headers",
			path("x.h"),
			"--out-body",
			path("x.b"),
		);
		expect(refused.code).toBe(2);
		expect(refused.stdout).toContain("oaep, oaep-sha256, oaep-sha384, oaep-sha512");
	});
});
