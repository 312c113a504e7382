import { DIGESTS } from "../../algorithms.ts";
import { unpack } from "../../as2/unpack.ts";
import { fileChunks, readHeadersFile, writeChunks } from "../files.ts";
import { loadCertificates, loadIdentity } from "../identity.ts";
import { printJson } from "../output.ts";
import { atOption, options, required } from "./options.ts";

export const receiveOptions = {
	headers: { type: "string" },
	body: { type: "string" },
	key: { type: "string" },
	cert: { type: "string" },
	"key-pass": { type: "string" },
	"partner-cert": { type: "string", multiple: true },
	"require-signed": { type: "boolean" },
	"require-encrypted": { type: "boolean" },
	at: { type: "string" },
} as const;

export type ReceiveValues = ReturnType<typeof options<typeof receiveOptions>>;

/** The inbound message as the `parse` and `mdn` commands read it. */
export async function openMessage(v: ReceiveValues) {
	const identity = v.key ? await loadIdentity(v.key, v.cert, v["key-pass"]) : undefined;
	const at = atOption(v.at);
	return unpack({
		headers: await readHeadersFile(required(v, "headers")),
		body: fileChunks(required(v, "body")),
		...(identity ? { identities: [identity] } : {}),
		...(v["partner-cert"] ? { partnerCertificates: await loadCertificates(v["partner-cert"]) } : {}),
		...(at ? { at } : {}),
		requireSigned: Boolean(v["require-signed"]),
		requireEncrypted: Boolean(v["require-encrypted"]),
	});
}

export async function runParse(args: string[]): Promise<void> {
	const v = options(args, { ...receiveOptions, "out-payload": { type: "string" } });
	const message = await openMessage(v);
	await writeChunks(required(v, "out-payload"), message.payload);
	const report = await message.complete();
	const algorithms: Record<string, string> = {};
	for (const layer of report.layers) {
		if (layer.kind === "encrypted") {
			algorithms.encryption = layer.algorithm;
			algorithms.key_encryption = layer.keyEncryption;
			algorithms.container = layer.container;
		} else if (layer.kind === "signed" && layer.digest) {
			algorithms.signature = layer.digest;
			if (report.signature) algorithms.signature_scheme = report.signature.scheme;
		} else if (layer.kind === "compressed") {
			algorithms.compression = "zlib";
		}
	}
	printJson({
		message_id: message.messageId,
		from: message.from,
		to: message.to,
		subject: message.subject ?? null,
		signed: message.signed,
		encrypted: message.encrypted,
		compressed: message.compressed,
		layers: report.layers.map((l) => l.kind),
		algorithms,
		mic: report.mic.value,
		mic_algorithm: DIGESTS[report.mic.algorithm].micalg,
		mic_reading: report.micReading,
		content_type: message.contentType,
		filename: message.filename ?? null,
		mdn: message.mdnRequest
			? {
					mode: message.mdnRequest.mode,
					url: message.mdnRequest.url ?? null,
					signed: message.mdnRequest.signed,
					mic_algorithms: message.mdnRequest.micAlgorithms.map((a) => DIGESTS[a].micalg),
				}
			: null,
	});
}
