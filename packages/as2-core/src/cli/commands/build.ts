import { DIGESTS, parseCipherName } from "../../algorithms.ts";
import { pack } from "../../as2/pack.ts";
import { fileSource, writeChunks, writeHeadersFile } from "../files.ts";
import { loadCertificates, loadIdentity } from "../identity.ts";
import { printJson } from "../output.ts";
import { options, required, signAlgorithm } from "./options.ts";

export async function runBuild(args: string[]): Promise<void> {
	const v = options(args, {
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
	});
	const payload = await fileSource(required(v, "payload"));
	const compress = v.compress;
	if (compress !== undefined && compress !== "before-sign" && compress !== "after-sign") {
		throw new Error("--compress takes before-sign or after-sign");
	}
	const mdnMode = v.mdn ?? "none";
	if (mdnMode !== "none" && mdnMode !== "sync" && mdnMode !== "async")
		throw new Error("--mdn takes none, sync or async");
	const keyEncryption = v["key-encryption"] ?? "rsa";
	if (keyEncryption !== "rsa" && keyEncryption !== "oaep") throw new Error("--key-encryption takes rsa or oaep");
	const transferEncoding = v["transfer-encoding"] ?? "binary";
	if (transferEncoding !== "binary" && transferEncoding !== "base64")
		throw new Error("--transfer-encoding takes binary or base64");

	let sign: Parameters<typeof pack>[0]["sign"];
	if (v.sign) {
		const identity = await loadIdentity(required(v, "key"), v.cert, v["key-pass"]);
		const algorithm = signAlgorithm(v.sign);
		sign = {
			privateKey: identity.privateKey,
			certificate: identity.certificate,
			chain: identity.chain,
			digest: algorithm.digest,
			scheme: algorithm.scheme,
			signedAttributes: !v["no-signed-attributes"],
			algorithmProtection: !v["no-algorithm-protection"],
		};
	}
	const recipients = v["recipient-cert"] ?? [];
	if (v.encrypt && recipients.length === 0) throw new Error("--encrypt needs --recipient-cert");
	const message = await pack({
		payload,
		contentType: v["content-type"] ?? "application/octet-stream",
		from: required(v, "from"),
		to: required(v, "to"),
		...(v.filename ? { filename: v.filename } : {}),
		...(v.subject ? { subject: v.subject } : {}),
		...(v["message-id"] ? { messageId: v["message-id"] } : {}),
		...(sign ? { sign } : {}),
		...(v.encrypt
			? {
					encrypt: {
						certificates: await loadCertificates(recipients),
						algorithm: parseCipherName(v.encrypt),
						keyEncryption,
					},
				}
			: {}),
		...(compress ? { compress } : {}),
		mdn: {
			mode: mdnMode,
			...(v["mdn-url"] ? { url: v["mdn-url"] } : {}),
			signed: v["signed-mdn"] ? [signAlgorithm(v["signed-mdn"]).digest] : false,
		},
		transferEncoding,
	});
	await writeChunks(required(v, "out-body"), message.body.open());
	await writeHeadersFile(required(v, "out-headers"), message.headers, [["Content-Length", String(message.body.size)]]);
	const mic = await message.mic();
	printJson({
		message_id: message.messageId,
		mic: mic.value,
		mic_algorithm: DIGESTS[mic.algorithm].micalg,
		bytes: message.body.size,
	});
}
