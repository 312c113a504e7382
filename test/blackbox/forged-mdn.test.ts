/**
 * Forged MDNs against the built server (issue #16, defect 5). A live message goes to a partner
 * on loopback (the on-premise opt-in AS2_ALLOW_PRIVATE_TARGETS=1) and waits for a signed async
 * MDN. Anyone can POST to /as2/receive: an unsigned MDN (over a raw socket) and one signed by a
 * key that is not the partner's (with fetch) settle nothing, they show in the message's
 * rejected_mdns, and the partner's genuine MDN (built here with its key by as2-core's
 * buildMdn) then delivers the message.
 */
import { rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { buildMdn, importPrivateKey, type Mic, parseCertificates, parseMic } from "@as2kit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCertificates } from "../../packages/server/test/helpers/certs.ts";
import { asyncMdnPartners } from "./async-mdn-partners.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, createKey, rawRequest, register } from "./clients.ts";

const certs = makeCertificates();
const partnerKey = certs.selfSigned("bb-partner");
const forgerKey = certs.selfSigned("bb-forger");

let server: BuiltServer;
let partnerEndpoint: Server;
const received: IncomingHttpHeaders[] = [];
let liveKey: string;
let tenantAs2Id: string;

beforeAll(async () => {
	// The partner's AS2 endpoint: takes the message and answers 200 (its MDN comes later, async).
	partnerEndpoint = createServer((req, res) => {
		received.push(req.headers);
		req.resume();
		req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end("received"));
	});
	await new Promise<void>((resolve) => partnerEndpoint.listen(0, "127.0.0.1", resolve));
	server = await startBuiltServer({
		env: { AS2_ALLOW_HTTP: "1", AS2_ALLOW_PRIVATE_TARGETS: "1", AS2_DEFAULT_PLAN: "professional" },
	});
	const user = await register(server.base);
	liveKey = await createKey(server.base, user.token, { scope: "account", environment: "live", permissions: ["*"] });
	tenantAs2Id = (await call(server.base, "GET", `/v1/tenants/${user.tenantId}`, { token: liveKey })).json.data.as2_id;
});
afterAll(async () => {
	await server?.stop();
	await new Promise<void>((resolve) => partnerEndpoint.close(() => resolve()));
	rmSync(certs.dir, { recursive: true, force: true });
});

const partners = asyncMdnPartners({
	base: () => server.base,
	token: () => liveKey,
	endpointPort: () => (partnerEndpoint.address() as AddressInfo).port,
	certificatePem: partnerKey.certPem,
});
const createPartner = (as2Id: string, signedMdn: boolean) =>
	partners.create(as2Id, { sign: true, encrypt: true, mdn: { signed: signedMdn, url: `${server.base}/as2/receive` } });
const detail = partners.detail;
const sentMessage = (partnerId: string) =>
	partners.sent(partnerId, { content_type: "application/edi-x12", content: "ISA*00*~IEA*1~" });

/** An MDN for `message` as its partner would send it: signed by `signer` (or not), with `mic` (or none). */
// biome-ignore lint/suspicious/noExplicitAny: the message detail as JSON
function mdnFor(message: any, options: { signer?: { certPem: string; keyPem: string }; mic: Mic | null }) {
	const mdn = buildMdn({
		original: {
			messageId: message.message_id,
			from: tenantAs2Id,
			to: message.partner.as2_id,
			// What our message asked for; buildMdn signs only a receipt that was asked to be signed.
			mdnRequest: {
				mode: "async",
				url: `${server.base}/as2/receive`,
				notificationTo: "as2@as2kit.local",
				signed: options.signer !== undefined,
				micAlgorithms: ["sha256"],
			},
			...(options.mic ? { mic: options.mic } : {}),
		},
		disposition: { type: "processed" },
		...(options.signer
			? {
					sign: {
						privateKey: importPrivateKey(options.signer.keyPem),
						certificate: parseCertificates(options.signer.certPem)[0]!,
					},
				}
			: {}),
	});
	// AS2-From (the partner) and AS2-To (us) come from `original`.
	const headers: Record<string, string> = {};
	for (const [name, value] of mdn.headers) headers[name] = value;
	return { headers, body: mdn.body };
}

async function postWithFetch(mdn: ReturnType<typeof mdnFor>) {
	const response = await fetch(`${server.base}/as2/mdn`, {
		method: "POST",
		headers: mdn.headers,
		body: Buffer.from(mdn.body),
		signal: AbortSignal.timeout(30_000),
	});
	return { status: response.status, text: await response.text() };
}

function postOverSocket(mdn: ReturnType<typeof mdnFor>) {
	const lines = Object.entries(mdn.headers).map(([name, value]) => `${name}: ${value}\r\n`);
	const head = `POST /as2/receive HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: ${mdn.body.byteLength}\r\n${lines.join("")}\r\n`;
	return rawRequest(server.port, head, [mdn.body]);
}

describe("an async MDN for a message that asked for a signed one", () => {
	it("settles nothing when forged, is recorded, and the genuine MDN then delivers the message", async () => {
		const message = await sentMessage(await createPartner("GENUINE", true));
		expect(received.at(-1)?.["receipt-delivery-option"]).toBe(`${server.base}/as2/receive`);
		const ourMic = parseMic(message.mic)!;

		const unsigned = await postOverSocket(mdnFor(message, { mic: ourMic }));
		expect(unsigned.status, unsigned.raw).toBe(400);
		expect(unsigned.raw).toMatch(/not accepted: it is unsigned, and the partner agreement asks for a signed MDN/);
		const wrongKey = await postWithFetch(mdnFor(message, { signer: forgerKey, mic: ourMic }));
		expect(wrongKey.status).toBe(400);
		expect(wrongKey.text).toMatch(/its signature does not verify against the partner's certificates/);

		const waiting = await detail(message.id);
		expect(waiting).toMatchObject({ status: "sent", mdn_status: "pending", mdn_data: null, error_code: null });
		expect(waiting.rejected_mdns).toMatchObject([
			{ signed: false, signature_valid: null, original_message_id: message.message_id },
			{ signed: true, signature_valid: false, original_message_id: message.message_id },
		]);

		const genuine = await postWithFetch(mdnFor(message, { signer: partnerKey, mic: ourMic }));
		expect(genuine).toEqual({ status: 200, text: "MDN received\n" });
		const delivered = await detail(message.id);
		expect(delivered).toMatchObject({
			status: "delivered",
			mdn_status: "received",
			mdn_data: { signed: true, signature_valid: true, mic_matches: true },
		});
		expect(delivered.rejected_mdns).toHaveLength(2);
		server.assertAlive();
	});
});

describe("an unsigned MDN where the partner agreement allows one", () => {
	it("does not deliver a signed message without its Received-Content-MIC; with it, it does", async () => {
		const message = await sentMessage(await createPartner("UNSIGNEDOK", false));
		const noMic = await postWithFetch(mdnFor(message, { mic: null }));
		expect(noMic.status).toBe(400);
		expect(noMic.text).toMatch(/returns no Received-Content-MIC for a signed message/);
		expect(await detail(message.id)).toMatchObject({ status: "sent", mdn_status: "pending" });

		const withMic = await postOverSocket(mdnFor(message, { mic: parseMic(message.mic)! }));
		expect(withMic.status).toBe(200);
		expect(await detail(message.id)).toMatchObject({ status: "delivered", rejected_mdns: [{ signed: false }] });
	});
});
