import { writeFile } from "node:fs/promises";
import { DIGESTS } from "../../algorithms.ts";
import { parseAs2Id } from "../../as2/as2-id.ts";
import type { MdnRequest } from "../../as2/mdn-request.ts";
import { readMdnRequest } from "../../as2/mdn-request.ts";
import { stripMessageId } from "../../as2/message-id.ts";
import type { Mic } from "../../as2/mic.ts";
import { toDisposition } from "../../errors/index.ts";
import { buildMdn } from "../../mdn/build-mdn.ts";
import type { Disposition } from "../../mdn/disposition.ts";
import { defineCommand, required } from "../command.ts";
import { EXIT, isInputFault, UsageError } from "../exit-codes.ts";
import { readHeadersFile, writeHeadersFile } from "../files.ts";
import { loadIdentity } from "../identity.ts";
import { printJson } from "../output.ts";
import { openMessage, RECEIVE_OPTIONS_HELP, receiveOptions } from "./parse.ts";

/** Reads the message as a receiver would, then answers it with the disposition it earned. */
export const mdn = defineCommand({
	name: "mdn",
	summary: "answer an inbound AS2 message with the MDN it earned (signed with --key)",
	usage: `as2kit mdn --headers H --body B --out-headers H2 --out-body B2 [options]

Reads the message as parse does and writes the MDN a receiver sends back: processed, or
processed/error with the modifier of what went wrong (RFC 4130 §7.4.3). Signed with --key
when the message asked for a signed MDN.

${RECEIVE_OPTIONS_HELP}
  --status S                  override the disposition: processed, error:MODIFIER,
                              warning:TEXT or failed:TEXT
  --out-headers H2            where to write the MDN's headers (required)
  --out-body B2               where to write the MDN's body (required)

Prints {message_id, signed, disposition, mic, mic_algorithm}. Exits 0 once the MDN is
written, also a negative one (the disposition says which): the partner is owed either.`,
	options: {
		...receiveOptions,
		status: { type: "string" },
		"out-headers": { type: "string" },
		"out-body": { type: "string" },
	},
	async run(v) {
		const outHeaders = required(v, "out-headers");
		const outBody = required(v, "out-body");
		const forced = v.status ? parseStatus(v.status) : undefined;
		const headers = await readHeadersFile(required(v, "headers"));
		const identity = v.key ? await loadIdentity(v.key, v.cert, v["key-pass"]) : undefined;
		let mic: Mic | undefined;
		let disposition: Disposition = { type: "processed" };
		let request: MdnRequest | undefined = readMdnRequest(headers);
		try {
			const message = await openMessage(v);
			request = message.mdnRequest;
			for await (const _ of message.payload);
			mic = (await message.complete()).mic;
		} catch (error) {
			// A file we cannot read is our problem, not the partner's: no MDN for it.
			if (isInputFault(error)) throw error;
			disposition = { type: "processed", modifier: "error", detail: toDisposition(error) };
		}
		if (forced) disposition = forced;
		const answer = buildMdn({
			original: {
				messageId: stripMessageId(headers.get("message-id") ?? ""),
				from: parseAs2Id(headers.get("as2-from"), "AS2-From"),
				to: parseAs2Id(headers.get("as2-to"), "AS2-To"),
				...(request ? { mdnRequest: request } : {}),
				...(mic ? { mic } : {}),
			},
			disposition,
			...(identity ? { sign: { privateKey: identity.privateKey, certificate: identity.certificate } } : {}),
		});
		await writeFile(outBody, answer.body);
		await writeHeadersFile(outHeaders, answer.headers, [["Content-Length", String(answer.body.byteLength)]]);
		printJson({
			message_id: answer.messageId,
			signed: answer.signed,
			disposition:
				"modifier" in disposition ? `${disposition.type}/${disposition.modifier}: ${disposition.detail}` : "processed",
			mic: mic?.value ?? null,
			mic_algorithm: mic ? DIGESTS[mic.algorithm].micalg : null,
		});
		return EXIT.ok;
	},
});

function parseStatus(status: string): Disposition {
	const colon = status.indexOf(":");
	const kind = (colon >= 0 ? status.slice(0, colon) : status).trim();
	const detail = colon >= 0 ? status.slice(colon + 1).trim() : "";
	if (kind === "processed") return { type: "processed" };
	if (kind === "error" && detail) return { type: "processed", modifier: "error", detail };
	if (kind === "warning" && detail) return { type: "processed", modifier: "warning", detail };
	if (kind === "failed" && detail) return { type: "failed", modifier: "failure", detail };
	throw new UsageError(`--status takes processed, error:MODIFIER, warning:TEXT or failed:TEXT`);
}
