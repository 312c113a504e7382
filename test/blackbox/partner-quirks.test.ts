/**
 * A representative subset of the partner-quirk table (issue #17, defect 6;
 * packages/server/test/e2e/partner-quirks.test.ts has every row) against the built server
 * over real sockets. Each partner's bytes are built with the OpenSSL CLI and MIME assembled
 * as the partner writes it (packages/server/test/helpers/partner-bytes.ts):
 *
 * - Orderful (axios) base64-encodes the whole HTTP body, with Content-Transfer-Encoding:
 *   base64 among the HTTP headers, of messages (fetch) and of async MDNs (a raw socket)
 *   (OpenAs2App#299, as2-anchors §C10); a body that is not base64 gets a clear error MDN;
 * - a signed message with AS2-Version: 1.0 (curl), and one with Cleo's micalg=sha_256
 *   (fetch) (pyas2-lib#15, §D5);
 * - HTTP framing (§D11): a message sent `Transfer-Encoding: chunked`, and one whose
 *   Content-Length has leading zeros, over raw sockets;
 * - a partner answering our SHA-512 MIC request with the SHA-1 MIC of what we signed
 *   (RFC 4130 §7.3.1): our message goes out for real to a loopback endpoint that keeps the
 *   bytes, and the MDN is posted with curl.
 */
import { createHash } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCertificates } from "../../packages/server/test/helpers/certs.ts";
import {
	base64HttpBody,
	encryptedMessage,
	type MessageIds,
	mimeEntity,
	openas2AsyncMdn,
	pyas2SignedMdn,
	signedMessage,
	type WireMessage,
} from "../../packages/server/test/helpers/partner-bytes.ts";
import { asyncMdnPartners, startPartnerWorld } from "./async-mdn-partners.ts";
import type { BuiltServer } from "./built-server.ts";
import { call, curl, rawRequest } from "./clients.ts";

const certs = makeCertificates();
const partnerKey = certs.selfSigned("bb-quirks-partner");
const PAYLOAD = "ISA*00*          *00*          *ZZ*BBQUIRK*ZZ*AS2KIT~\r\nST*850*0001~\r\n";
const ENTITY = mimeEntity(['Content-Type: application/edi-x12; name="po.x12"'], PAYLOAD);

/** The bodies our server POSTed to the partner endpoint, with their Content-Type. */
const delivered: Array<{ contentType: string; body: Buffer }> = [];
let world: Awaited<ReturnType<typeof startPartnerWorld>>;
let server: BuiltServer;
let liveKey: string;
let tenantAs2Id: string;
let ourCertPath: string;

beforeAll(async () => {
	world = await startPartnerWorld({
		name: "bb-quirks",
		certDir: certs.dir,
		onDelivery: (delivery) => delivered.push(delivery),
	});
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
	partners.sent(partnerId, { content_type: "application/edi-x12", content: PAYLOAD });

async function postWithFetch(path: string, wire: WireMessage) {
	const response = await fetch(`${server.base}${path}`, {
		method: "POST",
		headers: wire.headers,
		body: new Uint8Array(wire.body),
		signal: AbortSignal.timeout(30_000),
	});
	return { status: response.status, text: await response.text() };
}

async function postWithCurl(path: string, wire: WireMessage, name: string) {
	const bodyPath = join(certs.dir, `${name}.body`);
	writeFileSync(bodyPath, wire.body);
	const headers = Object.entries(wire.headers).flatMap(([n, v]) => ["-H", `${n}: ${v}`]);
	const { stdout } = await curl([
		"-sS",
		"-o",
		"-",
		"-w",
		"\n%{http_code}",
		...headers,
		"--data-binary",
		`@${bodyPath}`,
		`${server.base}${path}`,
	]);
	const cut = stdout.lastIndexOf("\n");
	return { status: Number(stdout.slice(cut + 1)), text: stdout.slice(0, cut) };
}

function postOverSocket(path: string, wire: WireMessage) {
	const lines = Object.entries(wire.headers).map(([name, value]) => `${name}: ${value}\r\n`);
	const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: ${wire.body.byteLength}\r\n${lines.join("")}\r\n`;
	return rawRequest(server.port, head, [wire.body]);
}

const SYNC_MDN = {
	"Disposition-Notification-To": "as2@partner.example",
	"Disposition-Notification-Options":
		"signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256",
};
const sha256Mic = (bytes: Buffer) => `${createHash("sha256").update(bytes).digest("base64")}, sha-256`;

/** The inbound message `messageId` as stored, and its payload. */
async function receivedMessage(messageId: string) {
	const inbound = await call(server.base, "GET", "/v1/messages?direction=inbound", { token: liveKey });
	const received = inbound.json.data.find((m: { message_id: string }) => m.message_id === messageId);
	const payload = await fetch(`${server.base}/v1/messages/${received.id}/payload`, {
		headers: { authorization: `Bearer ${liveKey}` },
		signal: AbortSignal.timeout(30_000),
	});
	return { received, payload: Buffer.from(await payload.arrayBuffer()).toString("latin1") };
}

describe("messages as partners send them, to /as2/receive", () => {
	it("Orderful (axios): an encrypted message in a base64 HTTP body (fetch); a body that is not base64 gets an error MDN", async () => {
		await createPartner("BB-ORDERFUL");
		const ids: MessageIds = { from: "BB-ORDERFUL", to: tenantAs2Id, messageId: "bb-orderful-1@orderful" };
		const wire = base64HttpBody(encryptedMessage(certs.dir, ENTITY, ourCertPath, ids, { headers: SYNC_MDN }));
		const answer = await postWithFetch("/as2/receive", wire);
		expect(answer.status, answer.text).toBe(200);
		expect(answer.text).toMatch(/Disposition: automatic-action\/MDN-sent-automatically; processed\r\n/);
		expect(answer.text).toContain(`Received-Content-MIC: ${sha256Mic(ENTITY)}\r\n`);
		expect(await receivedMessage(ids.messageId)).toMatchObject({
			received: { status: "received", encrypted: true },
			payload: PAYLOAD,
		});

		const broken = { ...wire, body: Buffer.from("this is not base64 at all: ###\r\n") };
		broken.headers = { ...wire.headers, "Message-ID": "<bb-orderful-2@orderful>" };
		const refused = await postWithFetch("/as2/receive", broken);
		expect(refused.status, refused.text).toBeLessThan(500);
		expect(refused.text).toMatch(/Disposition: automatic-action\/MDN-sent-automatically; (processed\/)?(error|failed)/);
		expect(refused.text).toMatch(/base64/i);
		server.assertAlive();
	});

	it("AS2-Version 1.0 (curl) and Cleo's micalg=sha_256 (fetch) are received and their MIC returned", async () => {
		await createPartner("BB-LEGACY");
		const legacy: MessageIds = { from: "BB-LEGACY", to: tenantAs2Id, messageId: "bb-as2-10@legacy" };
		const version10 = signedMessage(certs.dir, ENTITY, partnerKey, legacy, {
			digest: "sha256",
			micalg: "sha-256",
			headers: { "AS2-Version": "1.0", ...SYNC_MDN },
		});
		const cleo: MessageIds = { ...legacy, messageId: "bb-sha_256@cleo" };
		const sha_256 = signedMessage(certs.dir, ENTITY, partnerKey, cleo, {
			digest: "sha256",
			micalg: "sha_256",
			headers: {
				...SYNC_MDN,
				"Disposition-Notification-Options":
					"signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha_256",
			},
		});
		for (const answer of [
			await postWithCurl("/as2/receive", version10, "as2-version-10"),
			await postWithFetch("/as2/receive", sha_256),
		]) {
			expect(answer.status, answer.text).toBe(200);
			expect(answer.text).toMatch(/Disposition: automatic-action\/MDN-sent-automatically; processed\r\n/);
			expect(answer.text).toContain(`Received-Content-MIC: ${sha256Mic(ENTITY)}\r\n`);
		}
		for (const ids of [legacy, cleo]) {
			expect(await receivedMessage(ids.messageId)).toMatchObject({
				received: { status: "received", signed: true },
				payload: PAYLOAD,
			});
		}
		server.assertAlive();
	});
});

describe("HTTP framing as partners send it (§D11: OpenAS2 HowTo §17.5, DG-1Q14)", () => {
	it("a signed message sent chunked, and one whose Content-Length has leading zeros, over raw sockets", async () => {
		await createPartner("BB-FRAMING");
		const head = (wire: WireMessage, framing: string) =>
			`POST /as2/receive HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${framing}\r\n${Object.entries(
				wire.headers,
			)
				.map(([name, value]) => `${name}: ${value}\r\n`)
				.join("")}\r\n`;
		const build = (ids: MessageIds) =>
			signedMessage(certs.dir, ENTITY, partnerKey, ids, { digest: "sha256", micalg: "sha-256", headers: SYNC_MDN });
		const chunkedIds: MessageIds = { from: "BB-FRAMING", to: tenantAs2Id, messageId: "bb-chunked@framing" };
		const chunked = build(chunkedIds);
		const pieces: Array<Buffer | string> = [];
		for (let i = 0; i < chunked.body.byteLength; i += 500) {
			const piece = chunked.body.subarray(i, i + 500);
			pieces.push(`${piece.byteLength.toString(16)}\r\n`, piece, "\r\n");
		}
		pieces.push("0\r\n\r\n");
		const zerosIds: MessageIds = { ...chunkedIds, messageId: "bb-leading-zeros@framing" };
		const zeros = build(zerosIds);
		for (const answer of [
			await rawRequest(server.port, head(chunked, "Transfer-Encoding: chunked"), pieces),
			await rawRequest(server.port, head(zeros, `Content-Length: 000${zeros.body.byteLength}`), [zeros.body]),
		]) {
			expect(answer.status, answer.raw).toBe(200);
			expect(answer.raw).toMatch(/Disposition: automatic-action\/MDN-sent-automatically; processed\r\n/);
			expect(answer.raw).toContain(`Received-Content-MIC: ${sha256Mic(ENTITY)}\r\n`);
		}
		for (const ids of [chunkedIds, zerosIds]) {
			expect(await receivedMessage(ids.messageId)).toMatchObject({
				received: { status: "received" },
				payload: PAYLOAD,
			});
		}
		server.assertAlive();
	});
});

describe("async MDNs as partners send them", () => {
	it("Orderful (axios): a signed async MDN in a base64 HTTP body, over a raw socket, delivers our message", async () => {
		const message = await sentMessage(await createPartner("BB-ORDERFUL-MDN", { sign: true, encrypt: true }));
		const mdn = base64HttpBody(
			openas2AsyncMdn(
				certs.dir,
				{ from: "BB-ORDERFUL-MDN", to: tenantAs2Id, originalMessageId: message.message_id, mic: message.mic },
				partnerKey,
			),
		);
		const answer = await postOverSocket("/as2/receive", mdn);
		expect(answer.status, answer.raw).toBe(200);
		expect(answer.raw).toMatch(/MDN received/);
		expect(await detail(message.id)).toMatchObject({
			status: "delivered",
			mdn_status: "received",
			mdn_data: { signed: true, signature_valid: true, mic_matches: true },
		});
		const inbound = await call(server.base, "GET", "/v1/messages?direction=inbound", { token: liveKey });
		expect(
			inbound.json.data.filter((m: { partner: { as2_id: string } }) => m.partner.as2_id === "BB-ORDERFUL-MDN"),
		).toEqual([]);
		server.assertAlive();
	});

	it("a partner answering our SHA-512 MIC request with the SHA-1 MIC of what we signed (curl) delivers it", async () => {
		const partnerId = await createPartner("BB-SHA1-MIC", {
			sign: true,
			sign_algorithm: "SHA256withRSA",
			mdn: { signed: true, algorithm: "sha512", url: `${server.base}/as2/receive` },
		});
		const before = delivered.length;
		const message = await sentMessage(partnerId);
		expect(message.mic).toMatch(/, sha-512$/);
		const request = delivered[before]!;
		const boundary = /boundary="?([^";]+)"?/.exec(request.contentType)![1]!;
		const open = request.body.indexOf(`--${boundary}\r\n`) + boundary.length + 4;
		const signedBytes = request.body.subarray(open, request.body.indexOf(`\r\n--${boundary}`, open));
		const mic = `${createHash("sha1").update(signedBytes).digest("base64")}, sha1`;
		const mdn = pyas2SignedMdn(
			certs.dir,
			{ from: "BB-SHA1-MIC", to: tenantAs2Id, originalMessageId: message.message_id, mic },
			partnerKey,
		);
		expect(await postWithCurl("/as2/mdn", mdn, "sha1-mic")).toEqual({ status: 200, text: "MDN received\n" });
		expect(await detail(message.id)).toMatchObject({
			status: "delivered",
			mdn_status: "received",
			error_code: null,
			mdn_data: { mic_matches: true, received_content_mic: `${mic.split(", ")[0]}, sha-1` },
		});
		server.assertAlive();
	});
});
