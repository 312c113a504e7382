/**
 * Receipts and entities as partners send them, against the built server over real sockets
 * (issue #17, defects 1, 4 and 5). Each partner's bytes are built with the OpenSSL CLI and
 * MIME assembled as the partner writes it (packages/server/test/helpers/partner-bytes.ts):
 *
 * - pyas2-lib 1.4.4 answers a message we did not sign with a signed MDN without
 *   Received-Content-MIC: a receipt (mic_missing), posted with fetch;
 * - OpenAS2 4.9 posts its signed async MDN with a preamble repeating its own multipart/signed
 *   header: an MDN on /as2/mdn (fetch) and /as2/receive (a raw socket, in small slow pieces);
 *   a forged one of the same shape settles nothing;
 * - mendelson puts the bare EDIFACT file in 3DES EnvelopedData: posted with curl, received
 *   byte-exact; a real entity with a malformed header line is still refused in the MDN.
 *
 * Our messages go to a partner endpoint on loopback (AS2_ALLOW_PRIVATE_TARGETS=1) that
 * answers 200 and leaves the MDN to come async, as the partners above do.
 */
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCertificates } from "../../packages/server/test/helpers/certs.ts";
import {
	EDIFACT_INTERCHANGE,
	mendelsonRawEncrypted,
	openas2AsyncMdn,
	pyas2SignedMdn,
	type WireMessage,
} from "../../packages/server/test/helpers/partner-bytes.ts";
import { asyncMdnPartners, startPartnerWorld } from "./async-mdn-partners.ts";
import type { BuiltServer } from "./built-server.ts";
import { call, rawRequest } from "./clients.ts";

const certs = makeCertificates();
const partnerKey = certs.selfSigned("bb-receipts-partner");
const forgerKey = certs.selfSigned("bb-receipts-forger");

let world: Awaited<ReturnType<typeof startPartnerWorld>>;
let server: BuiltServer;
let liveKey: string;
let tenantAs2Id: string;
let ourCertPath: string;

beforeAll(async () => {
	world = await startPartnerWorld({ name: "bb-receipts", certDir: certs.dir });
	({ server, liveKey, tenantAs2Id, ourCertPath } = world);
});
afterAll(async () => {
	await world?.stop();
	rmSync(certs.dir, { recursive: true, force: true });
});

const partners = asyncMdnPartners({
	base: () => server.base,
	token: () => liveKey,
	endpointPort: () => world.endpointPort,
	certificatePem: partnerKey.certPem,
});
const createPartner = partners.create;
const detail = partners.detail;
const sentMessage = (partnerId: string) =>
	partners.sent(partnerId, { content_type: "application/edifact", content: "UNB+UNOA:2'UNZ+1'" });

async function postWithFetch(path: string, wire: WireMessage) {
	const response = await fetch(`${server.base}${path}`, {
		method: "POST",
		headers: wire.headers,
		body: new Uint8Array(wire.body),
		signal: AbortSignal.timeout(30_000),
	});
	return { status: response.status, text: await response.text() };
}

/** Over a raw socket, the body in 97-byte pieces with pauses, as a slow link delivers it. */
function postSlowlyOverSocket(path: string, wire: WireMessage) {
	const lines = Object.entries(wire.headers).map(([name, value]) => `${name}: ${value}\r\n`);
	const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: ${wire.body.byteLength}\r\n${lines.join("")}\r\n`;
	const pieces: Uint8Array[] = [];
	for (let i = 0; i < wire.body.byteLength; i += 97) pieces.push(wire.body.subarray(i, i + 97));
	return rawRequest(server.port, head, pieces, { pauseMs: 2 });
}

describe("pyas2-lib: a signed MDN without Received-Content-MIC for a message we did not sign", () => {
	it("delivers the message and records mic_missing", async () => {
		const message = await sentMessage(await createPartner("BB-PYAS2", { sign: false, encrypt: true }));
		expect(message.signed).toBe(false);
		const mdn = pyas2SignedMdn(
			certs.dir,
			{ from: "BB-PYAS2", to: tenantAs2Id, originalMessageId: message.message_id },
			partnerKey,
		);
		expect(await postWithFetch("/as2/mdn", mdn)).toEqual({ status: 200, text: "MDN received\n" });
		const delivered = await detail(message.id);
		expect(delivered).toMatchObject({
			status: "delivered",
			mdn_status: "received",
			mdn_data: { signed: true, signature_valid: true, received_content_mic: null, mic_missing: true },
		});
		server.assertAlive();
	});
});

describe("OpenAS2 4.9: a signed async MDN with a preamble repeating its multipart/signed header", () => {
	it("is taken as the MDN on /as2/mdn (fetch) and on /as2/receive (a slow raw socket); a forged one settles nothing", async () => {
		const partnerId = await createPartner("BB-OPENAS2", { sign: true, encrypt: true });
		const first = await sentMessage(partnerId);
		const second = await sentMessage(partnerId);
		const mdnFor = (message: { message_id: string; mic: string }, signer = partnerKey) =>
			openas2AsyncMdn(
				certs.dir,
				{ from: "BB-OPENAS2", to: tenantAs2Id, originalMessageId: message.message_id, mic: message.mic },
				signer,
			);

		const forged = await postWithFetch("/as2/mdn", mdnFor(first, forgerKey));
		expect(forged.status).toBe(400);
		expect(forged.text).toMatch(/not accepted: its signature does not verify/);
		expect(await detail(first.id)).toMatchObject({ status: "sent", mdn_status: "pending", rejected_mdns: [{}] });

		expect(await postWithFetch("/as2/mdn", mdnFor(first))).toEqual({ status: 200, text: "MDN received\n" });
		const overSocket = await postSlowlyOverSocket("/as2/receive", mdnFor(second));
		expect(overSocket.status, overSocket.raw).toBe(200);
		expect(overSocket.raw).toMatch(/MDN received/);
		for (const message of [first, second]) {
			expect(await detail(message.id)).toMatchObject({
				status: "delivered",
				mdn_status: "received",
				mdn_data: { signed: true, signature_valid: true, mic_matches: true, mic_missing: false },
			});
		}
		const inbound = await call(server.base, "GET", "/v1/messages?direction=inbound", { token: liveKey });
		expect(inbound.json.data.filter((m: { partner: { as2_id: string } }) => m.partner.as2_id === "BB-OPENAS2")).toEqual(
			[],
		);
		server.assertAlive();
	});
});

describe("mendelson: an unsigned 3DES message whose EnvelopedData holds the bare EDIFACT file", () => {
	/** POSTs with curl, as an operator replaying a capture would; returns the status and the sync MDN. */
	function postWithCurl(wire: WireMessage, name: string) {
		const bodyPath = join(certs.dir, `${name}.body`);
		writeFileSync(bodyPath, wire.body);
		const headers = Object.entries(wire.headers).flatMap(([n, v]) => ["-H", `${n}: ${v}`]);
		const out = execFileSync(
			"curl",
			[
				"-sS",
				"--max-time",
				"30",
				"-o",
				"-",
				"-w",
				"\n%{http_code}",
				...headers,
				"--data-binary",
				`@${bodyPath}`,
				`${server.base}/as2/receive`,
			],
			{ stdio: ["ignore", "pipe", "pipe"] },
		).toString("latin1");
		const cut = out.lastIndexOf("\n");
		return { status: Number(out.slice(cut + 1)), mdn: out.slice(0, cut) };
	}

	it("is received byte-exact as application/octet-stream; a real entity with a malformed header is still refused", async () => {
		await createPartner("BB-MENDELSON", { sign: false, encrypt: true, mdn_mode: "sync", mdn: { signed: false } });
		const ids = { from: "BB-MENDELSON", to: tenantAs2Id, messageId: "bb-mendelson-raw-1@mendelson" };
		const wire = mendelsonRawEncrypted(certs.dir, EDIFACT_INTERCHANGE, ourCertPath, ids);
		wire.headers["Disposition-Notification-To"] = "as2@mendelson.example";
		const answer = postWithCurl(wire, "raw");
		expect(answer.status, answer.mdn).toBe(200);
		expect(answer.mdn).toMatch(/Disposition: automatic-action\/MDN-sent-automatically; processed\r?\n/);
		const inbound = await call(server.base, "GET", "/v1/messages?direction=inbound", { token: liveKey });
		const received = inbound.json.data.find((m: { message_id: string }) => m.message_id === ids.messageId);
		expect(received).toMatchObject({ status: "received", content_type: "application/octet-stream", encrypted: true });
		const payload = await fetch(`${server.base}/v1/messages/${received.id}/payload`, {
			headers: { authorization: `Bearer ${liveKey}` },
			signal: AbortSignal.timeout(30_000),
		});
		expect(Buffer.from(await payload.arrayBuffer())).toEqual(EDIFACT_INTERCHANGE);

		// A MIME entity whose second line is no header: not raw content, but a malformed entity.
		const malformed = mendelsonRawEncrypted(
			certs.dir,
			Buffer.from("Content-Type: application/edifact\r\nBGM+220+PO1+9'\r\n\r\nUNB+UNOA:2'", "latin1"),
			ourCertPath,
			{ ...ids, messageId: "bb-mendelson-malformed-1@mendelson" },
		);
		malformed.headers["Disposition-Notification-To"] = "as2@mendelson.example";
		const refused = postWithCurl(malformed, "malformed");
		expect(refused.status, refused.mdn).toBe(200);
		expect(refused.mdn).toMatch(/header line without a colon/);
		expect(refused.mdn).toMatch(/Disposition: automatic-action\/MDN-sent-automatically; processed\/error/);
		server.assertAlive();
	});
});
