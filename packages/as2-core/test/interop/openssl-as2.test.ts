import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ContentEncryptionAlgorithm, DIGESTS, type DigestAlgorithm } from "../../src/algorithms.ts";
import { pack } from "../../src/as2/pack.ts";
import { unpack, unpackBuffered } from "../../src/as2/unpack.ts";
import { type ByteSource, collect } from "../../src/bytes/index.ts";
import { importPrivateKey } from "../../src/crypto/index.ts";
import { type TestIdentity, testIdentity } from "../helpers/certs.ts";
import { compressEntity, uncompressWithAsn1parse } from "../helpers/compressed-data.ts";
import { firstPart, param, secondPart, splitEntity } from "../helpers/mime-text.ts";
import { openssl, opensslVerifyDetached, scratch } from "../helpers/openssl.ts";
import { streamed, streamingSource } from "../helpers/paths.ts";

// pack() reads a small streamed payload into memory and takes its buffered path: here it is
// kept streaming, so that OpenSSL also reads what the streaming path (every payload over
// BUFFERED_MAX_BYTES) builds.
vi.mock("../../src/bytes/index.ts", async (importOriginal) => {
	const actual = await importOriginal<typeof import("../../src/bytes/index.ts")>();
	return { ...actual, inMemoryIfSmall: async (source: ByteSource) => source };
});

const SIGNS: Array<DigestAlgorithm | undefined> = [undefined, "sha1", "sha256", "sha384", "sha512"];
const CIPHERS: Array<ContentEncryptionAlgorithm | undefined> = [undefined, "3des", "aes128", "aes192", "aes256"];
const COMPRESSIONS = [undefined, "before-sign", "after-sign"] as const;
type Compression = (typeof COMPRESSIONS)[number];

const OPENSSL_CIPHER: Record<ContentEncryptionAlgorithm, string> = {
	"3des": "-des3",
	aes128: "-aes128",
	aes192: "-aes192",
	aes256: "-aes256",
	"aes128-gcm": "-aes-128-gcm",
	"aes256-gcm": "-aes-256-gcm",
};

interface Case {
	sign: DigestAlgorithm | undefined;
	cipher: ContentEncryptionAlgorithm | undefined;
	compress: Compression;
}

const CASES: Case[] = SIGNS.flatMap((sign) =>
	CIPHERS.flatMap((cipher) => COMPRESSIONS.map((compress) => ({ sign, cipher, compress }))),
).filter((c) => !(c.compress === "after-sign" && !c.sign));

/** Binary on purpose: CR, LF, CRLF and NUL bytes must all survive untouched. */
const PAYLOAD = Buffer.concat([
	Buffer.from("ISA*00*          *00*          *ZZ*SENDER*ZZ*RECEIVER~\r\nGS*PO\nST*850\r"),
	randomBytes(5000),
	Buffer.from("\r\n\r\nIEA*1*000000001~\n"),
]);

let alice: TestIdentity; // sender
let bob: TestIdentity; // receiver
const work = scratch("as2kit-interop-");

beforeAll(() => {
	alice = testIdentity("alice");
	bob = testIdentity("bob");
});
afterAll(() => work.cleanup());

/** Peels an entity the way OpenSSL sees it, layer by layer, and returns the payload. */
function opensslPeel(contentType: string, body: Buffer, signer: TestIdentity, recipient: TestIdentity): Buffer {
	let type = contentType;
	let content: Buffer = body;
	for (let depth = 0; depth < 6; depth++) {
		const media = type.split(";")[0]!.trim().toLowerCase();
		let inner: Buffer;
		if (media === "multipart/signed") {
			// OpenSSL's S/MIME reader rewrites line ends inside parts (LF with -binary, CRLF
			// without), so binary content is handed to it detached, split by the naive helper.
			const boundary = param(type, "boundary")!;
			const signedContent = firstPart(content, boundary);
			const signaturePart = splitEntity(secondPart(content, boundary));
			const signature = Buffer.from(signaturePart.body.toString("latin1"), "base64");
			const input = work.file(`content-${depth}`, signedContent);
			const sig = work.file(`sig-${depth}.der`, signature);
			inner = opensslVerifyDetached({
				signaturePath: sig,
				contentPath: input,
				caPath: signer.certPath,
				outPath: work.file(`verified-${depth}`),
			});
			if (!inner.equals(signedContent)) throw new Error("openssl verified other content");
		} else if (media === "application/pkcs7-mime") {
			const der = work.file(`in-${depth}.der`, content);
			const smime = (param(type, "smime-type") ?? "").toLowerCase();
			inner =
				smime === "compressed-data"
					? uncompressWithAsn1parse(der, content)
					: openssl([
							"cms",
							"-decrypt",
							"-binary",
							"-inform",
							"DER",
							"-in",
							der,
							"-inkey",
							recipient.keyPath,
							"-recip",
							recipient.certPath,
						]);
		} else {
			return content;
		}
		const entity = splitEntity(inner);
		type = entity.headers.get("content-type") ?? "text/plain";
		content = entity.body;
	}
	throw new Error("too many layers");
}

/** pack() takes its buffered path for a payload given as bytes, its streaming path for a stream. */
const PACK_PATHS = ["buffered", "streaming"] as const;

describe("as2-core builds, OpenSSL reads", () => {
	it.each(CASES.flatMap((c) => PACK_PATHS.map((path) => ({ ...c, path }))))("%s", async (c) => {
		const message = await pack({
			payload: c.path === "buffered" ? PAYLOAD : streamingSource(PAYLOAD),
			contentType: "application/edi-x12",
			filename: "po.x12",
			from: "ALICE",
			to: "BOB",
			...(c.sign
				? { sign: { privateKey: importPrivateKey(alice.keyPem), certificate: alice.certDer, digest: c.sign } }
				: {}),
			...(c.cipher ? { encrypt: { certificates: [bob.certDer], algorithm: c.cipher } } : {}),
			...(c.compress ? { compress: c.compress } : {}),
			mdn: { mode: "sync", signed: [c.sign ?? "sha256"] },
		});
		expect(message.body.bytes === undefined).toBe(c.path === "streaming");
		const body = Buffer.from(await collect(message.body.open()));
		expect(body.byteLength).toBe(message.body.size);
		const contentType = message.headers.get("content-type")!;
		expect(opensslPeel(contentType, body, alice, bob).equals(PAYLOAD)).toBe(true);

		// The MIC, computed independently (RFC 4130 §7.3.1).
		const mic = await message.mic();
		const algorithm = c.sign ?? "sha256";
		let covered: Buffer;
		if (c.sign) {
			let signedEntity: { type: string; body: Buffer } = { type: contentType, body };
			if (c.cipher) {
				const der = work.file("mic.der", body);
				const plain = openssl(["cms", "-decrypt", "-binary", "-inform", "DER", "-in", der, "-inkey", bob.keyPath]);
				const e = splitEntity(plain);
				signedEntity = { type: e.headers.get("content-type")!, body: e.body };
			}
			if (c.compress === "after-sign") {
				const der = work.file("mic2.der", signedEntity.body);
				const e = splitEntity(uncompressWithAsn1parse(der, signedEntity.body));
				signedEntity = { type: e.headers.get("content-type")!, body: e.body };
			}
			covered = firstPart(signedEntity.body, param(signedEntity.type, "boundary")!);
		} else if (c.cipher) {
			const der = work.file("mic.der", body);
			covered = openssl(["cms", "-decrypt", "-binary", "-inform", "DER", "-in", der, "-inkey", bob.keyPath]);
		} else {
			covered = body;
		}
		expect(mic.algorithm).toBe(algorithm);
		expect(mic.value).toBe(createHash(DIGESTS[algorithm].nodeName).update(covered).digest("base64"));
	});
});

/**
 * What OpenSSL builds: every layer made by `openssl cms`, alternating -stream (BER, indefinite
 * lengths) and base64 transfer encoding, read back by unpack(). Compression is built by hand
 * (helpers/compressed-data.ts): Debian's OpenSSL has no zlib.
 */
describe("OpenSSL builds, as2-core reads", () => {
	it.each(CASES.map((c, i) => ({ ...c, stream: i % 2 === 0, base64: i % 3 === 0 })))("%s", async (c) => {
		const payloadEntity = Buffer.concat([
			Buffer.from(
				'Content-Type: application/edi-x12\r\nContent-Transfer-Encoding: binary\r\nContent-Disposition: attachment; filename="po.x12"\r\n\r\n',
			),
			PAYLOAD,
		]);
		let entity: { type: string; headers: Buffer; body: Buffer; whole: Buffer } = {
			type: "application/edi-x12",
			headers: payloadEntity.subarray(0, payloadEntity.indexOf("\r\n\r\n") + 4),
			body: PAYLOAD,
			whole: payloadEntity,
		};
		const streamFlag = c.stream ? ["-stream"] : [];
		const wrapDer = (der: Buffer, smimeType: string, name: string) => {
			const encoded = c.base64 ? Buffer.from(`${der.toString("base64").replace(/.{1,64}/g, "$&\r\n")}`) : der;
			const type = `application/pkcs7-mime; smime-type=${smimeType}; name="${name}"`;
			const headers = Buffer.from(
				`Content-Type: ${type}\r\nContent-Transfer-Encoding: ${c.base64 ? "base64" : "binary"}\r\n\r\n`,
			);
			return { type, headers, body: encoded, whole: Buffer.concat([headers, encoded]) };
		};
		const compress = () => {
			entity = wrapDer(compressEntity(entity.whole, { ber: c.stream }), "compressed-data", "smime.p7z");
		};
		let signedPart: Buffer | undefined;
		if (c.compress === "before-sign" || (c.compress && !c.sign)) compress();
		if (c.sign) {
			const input = work.file("s-in", entity.whole);
			const out = openssl([
				"cms",
				"-sign",
				"-binary",
				"-in",
				input,
				"-signer",
				alice.certPath,
				"-inkey",
				alice.keyPath,
				"-md",
				c.sign,
				"-outform",
				"SMIME",
				"-crlfeol",
				...streamFlag,
			]);
			const e = splitEntity(out);
			const type = e.headers.get("content-type")!;
			signedPart = firstPart(e.body, param(type, "boundary")!);
			const headers = Buffer.from(`Content-Type: ${type}\r\n\r\n`);
			entity = { type, headers, body: e.body, whole: Buffer.concat([headers, e.body]) };
		}
		if (c.compress === "after-sign" && c.sign) compress();
		let decryptedEntity: Buffer | undefined;
		if (c.cipher) {
			decryptedEntity = entity.whole;
			const input = work.file("e-in", entity.whole);
			const der = openssl([
				"cms",
				"-encrypt",
				"-binary",
				"-in",
				input,
				"-outform",
				"DER",
				OPENSSL_CIPHER[c.cipher],
				...streamFlag,
				bob.certPath,
			]);
			entity = wrapDer(der, "enveloped-data", "smime.p7m");
		}
		const headers = new Map(splitEntity(entity.whole).headers);
		const httpHeaders: Record<string, string> = {
			"AS2-Version": "1.1",
			"AS2-From": '"ALICE CORP"',
			"AS2-To": "BOB",
			"Message-ID": "<openssl-1@test>",
			"Disposition-Notification-To": "alice@example.com",
			"Disposition-Notification-Options": `signed-receipt-protocol=required, pkcs7-signature; signed-receipt-micalg=required, ${c.sign ?? "sha256"}`,
			"Content-Type": headers.get("content-type")!,
			...(headers.get("content-disposition") ? { "Content-Disposition": headers.get("content-disposition")! } : {}),
			...(headers.get("content-transfer-encoding")
				? { "Content-Transfer-Encoding": headers.get("content-transfer-encoding")! }
				: {}),
		};
		const options = {
			headers: httpHeaders,
			identities: [{ privateKey: importPrivateKey(bob.keyPem), certificate: bob.certDer }],
			partnerCertificates: [alice.certDer],
		};
		// Both readers: the buffered one for the body as bytes (which must read it itself,
		// not fall back), the streaming one for the body as a stream.
		const bytes = new Uint8Array(entity.body);
		expect(await unpackBuffered({ ...options, body: bytes })).toBeDefined();
		for (const body of [bytes, streamed(bytes, 1000)]) {
			const message = await unpack({ ...options, body });
			const payload = Buffer.from(await collect(message.payload));
			expect(payload.equals(PAYLOAD)).toBe(true);
			const report = await message.complete();
			expect(message.from).toBe("ALICE CORP");
			expect(message.messageId).toBe("openssl-1@test");
			expect(message.filename).toBe("po.x12");
			expect(message.contentType).toBe("application/edi-x12");
			expect(message.signed).toBe(Boolean(c.sign));
			expect(message.encrypted).toBe(Boolean(c.cipher));
			expect(message.compressed).toBe(Boolean(c.compress));
			const encryptedLayer = report.layers.find((l) => l.kind === "encrypted");
			if (c.cipher) expect(encryptedLayer).toMatchObject({ algorithm: c.cipher, keyEncryption: "rsa" });
			const signedLayer = report.layers.find((l) => l.kind === "signed");
			if (c.sign) expect(signedLayer).toMatchObject({ digest: c.sign });
			const algorithm = c.sign ?? "sha256";
			// Unsigned and unencrypted: the content without headers, transfer-decoded.
			const covered =
				signedPart ??
				decryptedEntity ??
				(c.base64 && c.compress ? Buffer.from(entity.body.toString("latin1"), "base64") : entity.body);
			const expectedMic = createHash(DIGESTS[algorithm].nodeName).update(covered).digest("base64");
			expect(report.mic).toEqual({ value: expectedMic, algorithm });
		}
	});
});
