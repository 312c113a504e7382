import { DIGESTS } from "../../algorithms.ts";
import { micEquals, parseMic } from "../../as2/mic.ts";
import { parseMdn } from "../../mdn/parse-mdn.ts";
import { fileChunks, readHeadersFile } from "../files.ts";
import { loadCertificates } from "../identity.ts";
import { printJson } from "../output.ts";
import { atOption, options, required } from "./options.ts";

export async function runVerifyMdn(args: string[]): Promise<void> {
	const v = options(args, {
		headers: { type: "string" },
		body: { type: "string" },
		"partner-cert": { type: "string", multiple: true },
		"expect-mic": { type: "string" },
		at: { type: "string" },
	});
	const at = atOption(v.at);
	const mdn = await parseMdn({
		headers: await readHeadersFile(required(v, "headers")),
		body: fileChunks(required(v, "body")),
		...(v["partner-cert"] ? { partnerCertificates: await loadCertificates(v["partner-cert"]) } : {}),
		...(at ? { at } : {}),
	});
	const expected = v["expect-mic"] ? parseMic(v["expect-mic"]) : undefined;
	if (v["expect-mic"] && !expected) throw new Error(`--expect-mic "${v["expect-mic"]}" is not "<base64>, <algorithm>"`);
	printJson({
		original_message_id: mdn.originalMessageId,
		disposition: mdn.disposition.raw,
		positive: mdn.positive,
		mic: mdn.mic?.value ?? null,
		mic_algorithm: mdn.mic ? DIGESTS[mdn.mic.algorithm].micalg : null,
		signed: mdn.signed,
		signature_valid: mdn.signatureValid ?? false,
		...(mdn.signatureError
			? { signature_error: { code: mdn.signatureError.code, message: mdn.signatureError.message } }
			: {}),
		mic_matches: expected ? micEquals(mdn.mic, expected) : null,
	});
}
