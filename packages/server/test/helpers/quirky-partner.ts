import { createHash, randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import { handAssembledMdn, type Signer, type WireMessage } from "./partner-bytes.ts";

/** A request our server POSTed to the partner: its headers and body as they arrived. */
export interface PartnerRequest {
	headers: IncomingHttpHeaders;
	raw: Buffer;
}

export interface PartnerAnswer {
	status: number;
	headers?: Record<string, string>;
	body: Buffer | string;
}

export interface QuirkyPartners {
	/** The AS2 endpoint URL every partner shares (plain HTTP on 127.0.0.1). */
	url: string;
	/** How the endpoint answers requests to `as2Id` (the request's AS2-To). */
	answer(as2Id: string, respond: (request: PartnerRequest) => PartnerAnswer | Promise<PartnerAnswer>): void;
	/** Every request to `as2Id`, in order. */
	requests(as2Id: string): PartnerRequest[];
	/** The latest request to `as2Id`. */
	lastRequest(as2Id: string): PartnerRequest | undefined;
	close(): Promise<void>;
}

/**
 * A partner AS2 endpoint on 127.0.0.1 whose answer the test sets per partner AS2 id: the quirky
 * partners of the compatibility-hint suites (issue #17, Hints). A request to an id without an
 * answer gets a 500.
 */
export async function startQuirkyPartners(): Promise<QuirkyPartners> {
	const answers = new Map<string, (request: PartnerRequest) => PartnerAnswer | Promise<PartnerAnswer>>();
	const received = new Map<string, PartnerRequest[]>();
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on("data", (chunk: Buffer) => chunks.push(chunk));
		req.on("end", async () => {
			const request = { headers: req.headers, raw: Buffer.concat(chunks) };
			const to = String(req.headers["as2-to"]);
			received.set(to, [...(received.get(to) ?? []), request]);
			const answer = (await answers.get(to)?.(request)) ?? { status: 500, body: "no answer set" };
			res.writeHead(answer.status, answer.headers ?? { "content-type": "text/plain" }).end(answer.body);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/as2`,
		answer: (as2Id, respond) => answers.set(as2Id, respond),
		requests: (as2Id) => received.get(as2Id) ?? [],
		lastRequest: (as2Id) => received.get(as2Id)?.at(-1),
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

/**
 * The partner's signed MDN (`openssl cms -sign`, helpers/partner-bytes.ts) for `request`: its
 * disposition, Received-Content-MIC and human-readable text, addressed back to `ourAs2Id`.
 */
export function partnerMdn(
	dir: string,
	request: PartnerRequest,
	fields: { disposition: string; mic?: string; text?: string },
	signer: Signer,
	ourAs2Id: string,
): WireMessage {
	const partner = String(request.headers["as2-to"]);
	return handAssembledMdn(
		dir,
		[
			`Reporting-UA: ${partner} test partner`,
			`Original-Recipient: rfc822; ${partner}`,
			`Final-Recipient: rfc822; ${partner}`,
			`Original-Message-ID: ${request.headers["message-id"]}`,
			`Disposition: automatic-action/MDN-sent-automatically; ${fields.disposition}`,
			...(fields.mic ? [`Received-Content-MIC: ${fields.mic}`] : []),
			"",
		],
		signer,
		{
			headers: {
				"AS2-Version": "1.2",
				"AS2-From": partner,
				"AS2-To": ourAs2Id,
				"Message-ID": `<mdn-${randomUUID()}@${partner.toLowerCase()}.example>`,
			},
			...(fields.text ? { text: fields.text } : {}),
		},
	);
}

/** A sync MDN: the HTTP answer that carries it. */
export const syncAnswer = (wire: WireMessage): PartnerAnswer => ({
	status: 200,
	headers: wire.headers,
	body: wire.body,
});

/** The first part of the request's multipart/signed body: the bytes a partner takes its MIC over. */
export function signedPart(request: PartnerRequest): Buffer {
	const boundary = /boundary="?([^";]+)"?/.exec(String(request.headers["content-type"]))?.[1];
	if (!boundary) throw new Error(`not multipart/signed: ${request.headers["content-type"]}`);
	const opening = Buffer.from(`--${boundary}\r\n`);
	const start = request.raw.indexOf(opening) + opening.length;
	return request.raw.subarray(start, request.raw.indexOf(Buffer.from(`\r\n--${boundary}`), start));
}

/** The partner's positive signed MDN with the SHA-256 MIC of what we signed: a receipt. */
export function processedAnswer(dir: string, request: PartnerRequest, signer: Signer, ourAs2Id: string): PartnerAnswer {
	const mic = `${createHash("sha256").update(signedPart(request)).digest("base64")}, sha-256`;
	return syncAnswer(partnerMdn(dir, request, { disposition: "processed", mic }, signer, ourAs2Id));
}

/** POSTs a JSON body with the test's credential: `t.call` in process, `call` against a built server. */
export type PostJson = (
	path: string,
	body: Record<string, unknown>,
) => Promise<{ status: number; text: string; json: { data: { id: string } } }>;

/** Creates a live partner and uploads its certificate (usage both); answers the partner id. */
export async function createPartnerWithCertificate(
	post: PostJson,
	body: Record<string, unknown>,
	certificatePem: string,
): Promise<string> {
	const created = await post("/v1/partners", body);
	expect(created.status, created.text).toBe(201);
	const id = created.json.data.id;
	const certificate = await post(`/v1/partners/${id}/certificates`, {
		name: "partner",
		usage: "both",
		certificate: certificatePem,
	});
	expect(certificate.status, certificate.text).toBe(201);
	return id;
}
