import { DIGESTS } from "../../algorithms.ts";
import { unpack } from "../../as2/unpack.ts";
import { defineCommand, type OptionSpec, required } from "../command.ts";
import { EXIT } from "../exit-codes.ts";
import { fileChunks, readHeadersFile, writeChunks } from "../files.ts";
import { loadCertificates, loadIdentity } from "../identity.ts";
import { printJson } from "../output.ts";
import { atOption } from "./options.ts";

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
} as const satisfies OptionSpec;

export const RECEIVE_OPTIONS_HELP = `  --headers H                 the request headers, one "Name: value" a line (required)
  --body B                    the request body (required)
  --key K [--cert C]          our key to decrypt with: PEM (with --cert) or PKCS#12
  --key-pass P                the key's password
  --partner-cert P            the partner's certificate a signature must come from (repeatable)
  --require-signed            refuse an unsigned message
  --require-encrypted         refuse an unencrypted message
  --at DATETIME               judge certificate validity at this time (old captures)`;

export type ReceiveValues = {
	headers?: string | undefined;
	body?: string | undefined;
	key?: string | undefined;
	cert?: string | undefined;
	"key-pass"?: string | undefined;
	"partner-cert"?: string[] | undefined;
	"require-signed"?: boolean | undefined;
	"require-encrypted"?: boolean | undefined;
	at?: string | undefined;
};

/** The inbound message as the `parse` and `mdn` commands read it. */
export async function openMessage(v: ReceiveValues) {
	const headersPath = required(v, "headers");
	const bodyPath = required(v, "body");
	const at = atOption(v.at);
	const identity = v.key ? await loadIdentity(v.key, v.cert, v["key-pass"]) : undefined;
	const partnerCertificates = v["partner-cert"] ? await loadCertificates(v["partner-cert"]) : undefined;
	return unpack({
		headers: await readHeadersFile(headersPath),
		body: await fileChunks(bodyPath),
		...(identity ? { identities: [identity] } : {}),
		...(partnerCertificates ? { partnerCertificates } : {}),
		...(at ? { at } : {}),
		requireSigned: Boolean(v["require-signed"]),
		requireEncrypted: Boolean(v["require-encrypted"]),
	});
}

export const parse = defineCommand({
	name: "parse",
	summary: "read an inbound AS2 message: decrypt, verify, decompress, write the payload",
	usage: `as2kit parse --headers H --body B --out-payload F [options]

Reads an AS2 message as a receiver does and writes its payload to F.

${RECEIVE_OPTIONS_HELP}
  --out-payload F             where to write the payload (required)

Prints {message_id, from, to, subject, signed, encrypted, compressed, layers, algorithms, mic,
mic_algorithm, content_type, filename, mdn}. A message that does not pass (bad signature,
wrong key, policy) exits 1 with {error: {code, message, disposition}} and writes no payload.`,
	options: { ...receiveOptions, "out-payload": { type: "string" } },
	async run(v) {
		const outPayload = required(v, "out-payload");
		const message = await openMessage(v);
		await writeChunks(outPayload, message.payload);
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
		return EXIT.ok;
	},
});
