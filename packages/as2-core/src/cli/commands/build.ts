import { DIGESTS, KEY_ENCRYPTION_ALGORITHMS } from "../../algorithms.ts";
import { pack } from "../../as2/pack.ts";
import { isAs2Error } from "../../errors/index.ts";
import { defineCommand, oneOf, required } from "../command.ts";
import { EXIT, InputError, UsageError } from "../exit-codes.ts";
import { fileSource, writeChunks, writeHeadersFile } from "../files.ts";
import { loadCertificates, loadIdentity } from "../identity.ts";
import { printJson } from "../output.ts";
import { cipherAlgorithm, signAlgorithm } from "./options.ts";

export const build = defineCommand({
	name: "build",
	summary: "build an outbound AS2 message (sign, encrypt, compress, ask for an MDN)",
	usage: `as2kit build --payload FILE --from ID --to ID --out-headers H --out-body B [options]

Builds the HTTP request of an AS2 message: H gets its headers (one "Name: value" a line),
B its body.

  --payload FILE              the payload (required)
  --from ID, --to ID          AS2-From and AS2-To (required)
  --out-headers H             where to write the headers (required)
  --out-body B                where to write the body (required)
  --sign ALG                  sign with --key K (PEM with --cert C, or PKCS#12) [--key-pass P]
  --no-signed-attributes      sign without signed attributes
  --no-algorithm-protection   leave out the RFC 6211 attribute
  --encrypt ALG               encrypt for --recipient-cert P (repeatable)
  --key-encryption NAME       key transport: rsa (default), oaep (RFC 3560 defaults: SHA-1,
                              MGF1-SHA-1), oaep-sha256, oaep-sha384, oaep-sha512
  --compress before-sign|after-sign
  --mdn none|sync|async       ask for an MDN (default none); async needs --mdn-url URL
  --signed-mdn ALG            ask for a signed MDN with this MIC algorithm
  --content-type T            the payload's type (default application/octet-stream)
  --filename N, --subject S, --message-id ID
  --transfer-encoding binary|base64   (default binary)

ALG: sha1, sha256, sha384, sha512 (signing also sha256-pss …); 3des, aes128, aes192, aes256,
aes128-gcm, aes256-gcm. Prints {message_id, mic, mic_algorithm, bytes}: keep the MIC to check
the MDN with verify-mdn --expect-mic.`,
	options: {
		payload: { type: "string" },
		from: { type: "string" },
		to: { type: "string" },
		sign: { type: "string" },
		key: { type: "string" },
		cert: { type: "string" },
		"key-pass": { type: "string" },
		encrypt: { type: "string" },
		"recipient-cert": { type: "string", multiple: true },
		"key-encryption": { type: "string" },
		compress: { type: "string" },
		mdn: { type: "string" },
		"mdn-url": { type: "string" },
		"signed-mdn": { type: "string" },
		"content-type": { type: "string" },
		filename: { type: "string" },
		subject: { type: "string" },
		"message-id": { type: "string" },
		"transfer-encoding": { type: "string" },
		"no-signed-attributes": { type: "boolean" },
		"no-algorithm-protection": { type: "boolean" },
		"out-headers": { type: "string" },
		"out-body": { type: "string" },
	},
	async run(v) {
		const from = required(v, "from");
		const to = required(v, "to");
		const outBody = required(v, "out-body");
		const outHeaders = required(v, "out-headers");
		const payloadPath = required(v, "payload");
		const compress = v.compress === undefined ? undefined : oneOf(v.compress, "compress", COMPRESS, "before-sign");
		const mdnMode = oneOf(v.mdn, "mdn", ["none", "sync", "async"], "none");
		if (mdnMode === "async" && !v["mdn-url"]) throw new UsageError("--mdn async needs --mdn-url");
		const keyEncryption = oneOf(v["key-encryption"], "key-encryption", KEY_ENCRYPTION_ALGORITHMS, "rsa");
		const transferEncoding = oneOf(v["transfer-encoding"], "transfer-encoding", ["binary", "base64"], "binary");
		const recipients = v["recipient-cert"] ?? [];
		if (v.encrypt && recipients.length === 0) throw new UsageError("--encrypt needs --recipient-cert");
		const signing = v.sign ? signAlgorithm(v.sign, "sign") : undefined;
		const cipher = v.encrypt ? cipherAlgorithm(v.encrypt, "encrypt") : undefined;
		const mdnDigest = v["signed-mdn"] ? signAlgorithm(v["signed-mdn"], "signed-mdn").digest : undefined;

		let sign: Parameters<typeof pack>[0]["sign"];
		if (signing) {
			const identity = await loadIdentity(required(v, "key"), v.cert, v["key-pass"]);
			sign = {
				privateKey: identity.privateKey,
				certificate: identity.certificate,
				chain: identity.chain,
				digest: signing.digest,
				scheme: signing.scheme,
				signedAttributes: !v["no-signed-attributes"],
				algorithmProtection: !v["no-algorithm-protection"],
			};
		}
		const message = await pack({
			payload: await fileSource(payloadPath),
			contentType: v["content-type"] ?? "application/octet-stream",
			from,
			to,
			...(v.filename ? { filename: v.filename } : {}),
			...(v.subject ? { subject: v.subject } : {}),
			...(v["message-id"] ? { messageId: v["message-id"] } : {}),
			...(sign ? { sign } : {}),
			...(cipher
				? { encrypt: { certificates: await loadCertificates(recipients), algorithm: cipher, keyEncryption } }
				: {}),
			...(compress ? { compress } : {}),
			mdn: {
				mode: mdnMode,
				...(v["mdn-url"] ? { url: v["mdn-url"] } : {}),
				signed: mdnDigest ? [mdnDigest] : false,
			},
			transferEncoding,
		}).catch((error) => {
			throw refusedOption(error);
		});
		await writeChunks(outBody, message.body.open());
		await writeHeadersFile(outHeaders, message.headers, [["Content-Length", String(message.body.size)]]);
		const mic = await message.mic();
		printJson({
			message_id: message.messageId,
			mic: mic.value,
			mic_algorithm: DIGESTS[mic.algorithm].micalg,
			bytes: message.body.size,
		});
		return EXIT.ok;
	},
});

const COMPRESS = ["before-sign", "after-sign"] as const;
/** What pack refuses in a header value or an algorithm came from an option; the rest from a file. */
const OPTION_CODES = new Set(["INVALID_AS2_HEADERS", "INVALID_CONTENT_TYPE", "UNSUPPORTED_ALGORITHM"]);

function refusedOption(error: unknown): unknown {
	if (!isAs2Error(error)) return error;
	if (OPTION_CODES.has(error.code)) return new UsageError(error.message, { cause: error });
	return new InputError(error.message, { cause: error });
}
