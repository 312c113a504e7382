import { type PackOptions, pack } from "../../src/as2/pack.ts";
import { type UnpackOptions, unpack } from "../../src/as2/unpack.ts";
import { collect } from "../../src/bytes/index.ts";
import { MimeHeaders } from "../../src/mime/index.ts";
import { parties } from "./identities.ts";

export const PAYLOAD = new TextEncoder().encode("ISA*00*          *00*~GS*PO*ALICE*BOB~ST*850*0001~\r\nSE*2*0001~\n");

/** A packed message as plain header pairs and body bytes, ready to be bent by a test. */
export async function packed(options: Partial<PackOptions> = {}) {
	const message = await pack({
		payload: PAYLOAD,
		contentType: "application/edi-x12",
		from: "ALICE",
		to: "BOB",
		...options,
	});
	const body = Buffer.from(await collect(message.body.open()));
	return { headers: message.headers.entries(), body, mic: await message.mic(), messageId: message.messageId };
}

/** Unpacks with bob's key and alice's certificate unless told otherwise, reading the payload through. */
export async function received(
	headers: Iterable<[string, string]>,
	body: Uint8Array,
	options: Partial<UnpackOptions> = {},
) {
	const { bobIdentity, alice } = parties();
	const message = await unpack({
		headers: new MimeHeaders(headers),
		body,
		identities: [bobIdentity],
		partnerCertificates: [alice.certDer],
		...options,
	});
	const payload = await collect(message.payload);
	return { message, payload, report: await message.complete() };
}

export function withHeader(
	headers: Array<[string, string]>,
	name: string,
	value: string | undefined,
): Array<[string, string]> {
	const rest = headers.filter(([n]) => n.toLowerCase() !== name.toLowerCase());
	return value === undefined ? rest : [...rest, [name, value]];
}
