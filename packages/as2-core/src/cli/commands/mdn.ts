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
import { readHeadersFile, writeHeadersFile } from "../files.ts";
import { loadIdentity } from "../identity.ts";
import { printJson } from "../output.ts";
import { options, required } from "./options.ts";
import { openMessage, receiveOptions } from "./parse.ts";

/** Reads the message as a receiver would, then answers it with the disposition it earned. */
export async function runMdn(args: string[]): Promise<void> {
	const v = options(args, {
		...receiveOptions,
		status: { type: "string" },
		"out-headers": { type: "string" },
		"out-body": { type: "string" },
	});
	const headers = await readHeadersFile(required(v, "headers"));
	let mic: Mic | undefined;
	let disposition: Disposition = { type: "processed" };
	let request: MdnRequest | undefined = readMdnRequest(headers);
	try {
		const message = await openMessage(v);
		request = message.mdnRequest;
		for await (const _ of message.payload);
		mic = (await message.complete()).mic;
	} catch (error) {
		disposition = { type: "processed", modifier: "error", detail: toDisposition(error) };
	}
	if (v.status) disposition = parseStatus(v.status);
	const identity = v.key ? await loadIdentity(v.key, v.cert, v["key-pass"]) : undefined;
	const mdn = buildMdn({
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
	await writeFile(required(v, "out-body"), mdn.body);
	await writeHeadersFile(required(v, "out-headers"), mdn.headers, [["Content-Length", String(mdn.body.byteLength)]]);
	printJson({
		message_id: mdn.messageId,
		signed: mdn.signed,
		disposition:
			"modifier" in disposition ? `${disposition.type}/${disposition.modifier}: ${disposition.detail}` : "processed",
		mic: mic?.value ?? null,
		mic_algorithm: mic ? DIGESTS[mic.algorithm].micalg : null,
	});
}

function parseStatus(status: string): Disposition {
	const colon = status.indexOf(":");
	const kind = (colon >= 0 ? status.slice(0, colon) : status).trim();
	const detail = colon >= 0 ? status.slice(colon + 1).trim() : "";
	if (kind === "processed") return { type: "processed" };
	if (kind === "error" && detail) return { type: "processed", modifier: "error", detail };
	if (kind === "warning" && detail) return { type: "processed", modifier: "warning", detail };
	if (kind === "failed" && detail) return { type: "failed", modifier: "failure", detail };
	throw new Error(`--status takes processed, error:MODIFIER, warning:TEXT or failed:TEXT`);
}
