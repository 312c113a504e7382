/**
 * Compatibility hints (issue #17, Hints) against the built server over real sockets. A partner
 * endpoint on 127.0.0.1 plays a quirky partner: it answers our live messages with signed MDNs
 * made by `openssl cms -sign` (negative ones naming signed attributes, or a MIC in another
 * digest, sync and async) or with HTTP refusals; the failed message shows `error_hint` (read with
 * fetch), POST /v1/partners/{id}/validate (curl) and /test (fetch) report the same hints, and a
 * forged MDN naming the same quirk gives no hint (raw socket).
 */
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCertificates } from "../../packages/server/test/helpers/certs.ts";
import type { Signer } from "../../packages/server/test/helpers/partner-bytes.ts";
import {
	createPartnerWithCertificate,
	type PartnerAnswer,
	type PartnerRequest,
	partnerMdn,
	type QuirkyPartners,
	signedPart,
	startQuirkyPartners,
	syncAnswer as sync,
} from "../../packages/server/test/helpers/quirky-partner.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, curl, liveTenant, rawRequest } from "./clients.ts";

const certs = makeCertificates();
const partnerKey = certs.selfSigned("bb-hints-partner");
const stranger = certs.selfSigned("bb-hints-stranger");
const X12 = "ISA*00*          *00*          *ZZ*OURS*ZZ*HINTS~\r\nST*850*0001~\r\n";

let server: BuiltServer;
let partners: QuirkyPartners;
let liveKey: string;
let tenantAs2Id: string;

beforeAll(async () => {
	partners = await startQuirkyPartners();
	server = await startBuiltServer({
		env: { AS2_ALLOW_HTTP: "1", AS2_ALLOW_PRIVATE_TARGETS: "1", AS2_DEFAULT_PLAN: "professional" },
	});
	({ liveKey, tenantAs2Id } = await liveTenant(server.base));
});
afterAll(async () => {
	await server?.stop();
	await partners?.close();
	rmSync(certs.dir, { recursive: true, force: true });
});

async function partner(as2Id: string, settings: Record<string, unknown>, answer: (r: PartnerRequest) => PartnerAnswer) {
	partners.answer(as2Id, answer);
	return createPartnerWithCertificate(
		(path, body) => call(server.base, "POST", path, { token: liveKey, body }),
		{
			name: as2Id,
			as2_id: as2Id,
			url: partners.url,
			mdn_mode: "sync",
			mdn: { signed: true },
			...settings,
		},
		partnerKey.certPem,
	);
}

// biome-ignore lint/suspicious/noExplicitAny: the message detail as JSON
async function detail(id: string): Promise<any> {
	return (await call(server.base, "GET", `/v1/messages/${id}`, { token: liveKey })).json.data;
}

/** Sends a live message; bounded polling (30 s) until it is in one of `statuses`. */
async function send(partnerId: string, statuses = ["delivered", "failed"]) {
	const sent = await call(server.base, "POST", "/v1/messages", {
		token: liveKey,
		body: { partner_id: partnerId, content_type: "application/edi-x12", payload: { content: X12 } },
	});
	expect(sent.status, sent.text).toBe(202);
	for (let i = 0; i < 300; i++) {
		const message = await detail(sent.json.data.id);
		if (statuses.includes(message.status)) return message;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	throw new Error(`message ${sent.json.data.id} did not reach ${statuses.join("/")}`);
}

const mdnFor = (
	request: PartnerRequest,
	fields: { disposition: string; mic?: string; text?: string },
	signer: Signer = partnerKey,
) => partnerMdn(certs.dir, request, fields, signer, tenantAs2Id);

/** The SHA-512 MIC of the request's signed part. */
const sha512Mic = (request: PartnerRequest) =>
	`${createHash("sha512").update(signedPart(request)).digest("base64")}, sha-512`;

describe("hints on failed messages, read with fetch", () => {
	it("a negative MDN naming the signed attributes: signed_attributes false, profile ibm-sterling", async () => {
		const id = await partner("BB-STERLING", { sign: true }, (request) =>
			sync(
				mdnFor(request, {
					disposition: "processed/error: authentication-failed",
					text: "Signature Failed: signed attributes are not accepted",
				}),
			),
		);
		const message = await send(id);
		expect(message).toMatchObject({ status: "failed", error_code: "AUTHENTICATION_FAILED" });
		expect(message.error_hint).toMatchObject({
			setting: "compatibility.signed_attributes",
			value: false,
			profile: "ibm-sterling",
		});
	});

	it("an async MDN with the MIC in SHA-512, posted over a raw socket: mdn.algorithm sha512", async () => {
		const id = await partner(
			"BB-ASYNC-MIC",
			{ sign: true, mdn_mode: "async", mdn: { signed: true, url: `${server.base}/as2/receive` } },
			() => ({ status: 200, body: "accepted" }),
		);
		const waiting = await send(id, ["sent"]);
		const request = partners.lastRequest("BB-ASYNC-MIC")!;
		const mdn = mdnFor(request, { disposition: "processed", mic: sha512Mic(request) });
		const head = [
			"POST /as2/receive HTTP/1.1",
			`Host: 127.0.0.1:${server.port}`,
			...Object.entries(mdn.headers).map(([name, value]) => `${name}: ${value}`),
			`Content-Length: ${mdn.body.length}`,
			"Connection: close",
			"",
			"",
		].join("\r\n");
		const answer = await rawRequest(server.port, head, [mdn.body]);
		expect(answer.status, answer.raw).toBe(200);
		const failed = await detail(waiting.id);
		expect(failed).toMatchObject({ status: "failed", error_code: "MIC_MISMATCH" });
		expect(failed.error_hint).toMatchObject({ setting: "mdn.algorithm", value: "sha512" });
	});

	it("forged: a negative MDN naming the signed attributes, signed by a stranger, gives no hint", async () => {
		const id = await partner("BB-FORGED", { sign: true }, (request) =>
			sync(
				mdnFor(
					request,
					{ disposition: "processed/error: authentication-failed", text: "signed attributes are not accepted" },
					stranger,
				),
			),
		);
		const message = await send(id);
		expect(message).toMatchObject({ status: "failed", error_code: "INVALID_MDN", error_hint: null });
	});
});

describe("the partner checks report the same hints", () => {
	it("POST /validate with curl lists the hint of the partner's failures", async () => {
		const id = await partner("BB-VALIDATE", { sign: true }, () => ({
			status: 400,
			body: "Bad Request: no Content-Transfer-Encoding",
		}));
		const failed = await send(id);
		expect(failed).toMatchObject({ status: "failed", error_code: "PARTNER_REJECTED" });
		expect(failed.error_hint).toMatchObject({ setting: "compatibility.transfer_encoding", value: "base64" });
		const result = await curl([
			"-X",
			"POST",
			"-H",
			`Authorization: Bearer ${liveKey}`,
			"-w",
			"\n%{http_code}",
			`${server.base}/v1/partners/${id}/validate`,
		]);
		const [json, status] = result.stdout.split("\n");
		expect(status, result.stdout).toBe("200");
		expect(JSON.parse(json!).hints).toEqual([
			expect.objectContaining({
				setting: "compatibility.transfer_encoding",
				value: "base64",
				profile: "axway",
				messages: 1,
				last_message_id: failed.id,
			}),
		]);
	});

	it("POST /test with fetch: a decryption failure under OAEP SHA-256 hints key_encryption oaep", async () => {
		const id = await partner(
			"BB-TEST-OAEP",
			{ sign: true, encrypt: true, compatibility: { key_encryption: "oaep-sha256" } },
			(request) => sync(mdnFor(request, { disposition: "processed/error: decryption-failed" })),
		);
		const tested = await call(server.base, "POST", `/v1/partners/${id}/test`, {
			token: liveKey,
			body: { test_type: "mdn" },
		});
		expect(tested.status, tested.text).toBe(200);
		expect(tested.json).toMatchObject({
			success: false,
			data: { results: { hint: { setting: "compatibility.key_encryption", value: "oaep" } } },
		});
	});
});
