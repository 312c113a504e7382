import { buildMdnAsync, type Disposition, type MdnRequest, type Mic, toDisposition } from "@as2kit/core";
import { withFields } from "../with-fields.ts";
import type { Identity } from "./key-material.ts";

export interface MdnReply {
	status: number;
	headers: Array<[string, string]>;
	body: Uint8Array;
}

/** The disposition for a processing outcome: processed, or processed/error with the failure's modifier (RFC 4130 §7.4.3). */
export function dispositionFor(error: unknown): Disposition {
	return error === null
		? { type: "processed" }
		: { type: "processed", modifier: "error", detail: toDisposition(error) };
}

/**
 * The MDN answering a message, signed with our identity when the sender asked for a signed
 * receipt and we have one (an unknown AS2-To has none: that MDN goes unsigned). The RSA
 * signature is made in libuv's thread pool, so the event loop serves other requests meanwhile.
 */
export async function replyMdn(options: {
	original: { messageId: string; from: string; to: string; mdnRequest: MdnRequest };
	mic: Mic | undefined;
	disposition: Disposition;
	identity: Identity | null;
	text?: string;
	at: Date;
	domain: string;
}): Promise<MdnReply> {
	const mdn = await buildMdnAsync({
		original: options.mic ? withFields(options.original, { mic: options.mic }) : options.original,
		disposition: options.disposition,
		...(options.identity && options.original.mdnRequest.signed
			? {
					sign: {
						privateKey: options.identity.privateKey,
						certificate: options.identity.certificate,
						chain: options.identity.chain,
					},
				}
			: {}),
		reportingUa: "as2kit",
		date: options.at,
		messageIdDomain: options.domain,
		...(options.text ? { text: options.text } : {}),
	});
	// entries(): the fields copied once (a spread of the headers copied them twice).
	return { status: 200, headers: mdn.headers.entries(), body: mdn.body };
}
