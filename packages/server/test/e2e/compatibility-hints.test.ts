import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { inflateSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Background } from "../../src/service/jobs/background.ts";
import { makeCertificates } from "../helpers/certs.ts";
import {
	createPartnerWithCertificate,
	type PartnerAnswer,
	type PartnerRequest,
	partnerMdn,
	type QuirkyPartners,
	signedPart,
	startQuirkyPartners,
	syncAnswer as sync,
} from "../helpers/quirky-partner.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";
import { eventually, startWorker } from "../helpers/worker.ts";

/**
 * Compatibility hints (issue #17, Hints): a live message goes out through the real send job to a
 * partner endpoint on 127.0.0.1 that answers as a quirky partner does — a signed MDN
 * (`openssl cms -sign`) whose MIC it computed its own way or whose disposition is negative, or an
 * HTTP refusal — and the failed message's `error_hint` names the setting that would fix it.
 * POST /v1/partners/{id}/test and /validate report the same hints.
 */
const certs = makeCertificates();
const partnerKey = certs.selfSigned("hints-partner");
const X12 = "ISA*00*          *00*          *ZZ*OURS*ZZ*HINTS~\r\nST*850*0001~\r\nBEG*00*SA*4711~\r\n";

let partners: QuirkyPartners;
let t: TestApp;
let worker: Background;
let key: string;
let tenantAs2Id: string;

beforeAll(async () => {
	partners = await startQuirkyPartners();
	// The partner is on loopback over HTTP: the on-premise opt-ins.
	t = createTestApp({ defaultPlan: "professional", allowPrivateTargets: true, allowHttp: true });
	worker = startWorker(t);
	const owner = await register(t, "Hints Co");
	key = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "live",
		permissions: ["*"],
	});
	tenantAs2Id = (await t.call("GET", `/v1/tenants/${owner.tenantId}`, { token: owner.token })).json.data.as2_id;
});
afterAll(async () => {
	await worker?.stop();
	await t?.close();
	await partners?.close();
	rmSync(certs.dir, { recursive: true, force: true });
});

/** A live partner on the endpoint, sync signed MDN unless `settings` say otherwise. */
async function partner(as2Id: string, settings: Record<string, unknown>, answer: (r: PartnerRequest) => PartnerAnswer) {
	partners.answer(as2Id, answer);
	return createPartnerWithCertificate(
		(path, body) => t.call("POST", path, { token: key, body }),
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

/** Sends a live message and answers its detail once it is settled (delivered, failed, or sent awaiting an async MDN). */
async function send(partnerId: string, content = X12, settled = ["delivered", "failed"]) {
	const sent = await t.call("POST", "/v1/messages", {
		token: key,
		body: { partner_id: partnerId, content_type: "application/edi-x12", payload: { content } },
	});
	expect(sent.status, sent.text).toBe(202);
	const id = sent.json.data.id as string;
	await eventually(async () => settled.includes((await t.store.messages.getById(id))?.status ?? ""), `${id} settled`);
	return (await t.call("GET", `/v1/messages/${id}`, { token: key })).json.data;
}

/** The partner's signed MDN for `request`. */
const mdnFor = (request: PartnerRequest, fields: { disposition: string; mic?: string; text?: string }) =>
	partnerMdn(certs.dir, request, fields, partnerKey, tenantAs2Id);

const micOf = (bytes: Buffer, digest: "sha1" | "sha256" | "sha512", name = digest.replace("sha", "sha-")) =>
	`${createHash(digest).update(bytes).digest("base64")}, ${name}`;

describe("a receipt whose MIC a known quirk explains: MIC_MISMATCH with the setting that aligns it", () => {
	it("the MIC of our content in SHA-512 although we asked for SHA-256 (as2-anchors §D.4/§D.5): mdn.algorithm sha512", async () => {
		const id = await partner("MIC-SHA512", { sign: true, sign_algorithm: "SHA256withRSA" }, (request) =>
			sync(mdnFor(request, { disposition: "processed", mic: micOf(signedPart(request), "sha512") })),
		);
		const message = await send(id);
		expect(message).toMatchObject({ status: "failed", error_code: "MIC_MISMATCH" });
		expect(message.error_hint).toMatchObject({ setting: "mdn.algorithm", value: "sha512" });
		expect(message.error_hint.why).toMatch(/sha512/);
	});

	it("the MIC over our bare LF turned into CRLF (phase2#12, pyas2-lib 1.4.2): transfer_encoding base64, profile axway", async () => {
		const id = await partner("MIC-CANON", { sign: true }, (request) => {
			const canonical = Buffer.from(signedPart(request).toString("latin1").replace(/\r?\n/g, "\r\n"), "latin1");
			return sync(mdnFor(request, { disposition: "processed", mic: micOf(canonical, "sha256") }));
		});
		const message = await send(id, "ISA*00*LF~\nST*850*0001~\nBEG*00*SA*4711~\n");
		expect(message).toMatchObject({ status: "failed", error_code: "MIC_MISMATCH" });
		expect(message.error_hint).toEqual({
			setting: "compatibility.transfer_encoding",
			value: "base64",
			profile: "axway",
			why: expect.stringContaining("phase2#12"),
		});
	});

	it("the MIC of the uncompressed content although we compressed before signing (phase2#68, #140): compress_order after-sign", async () => {
		const id = await partner("MIC-COMPRESS", { sign: true, compress: true }, (request) => {
			// The signed part is our compressed-data entity: the partner hashes what it decompressed.
			const signed = signedPart(request);
			const der = signed.subarray(signed.indexOf("\r\n\r\n") + 4);
			const zlibStart = der.indexOf(Buffer.from([0x78]));
			const inner = inflateSync(der.subarray(zlibStart));
			return sync(mdnFor(request, { disposition: "processed", mic: micOf(inner, "sha256") }));
		});
		const message = await send(id);
		expect(message).toMatchObject({ status: "failed", error_code: "MIC_MISMATCH", compressed: true });
		expect(message.error_hint).toMatchObject({ setting: "compatibility.compress_order", value: "after-sign" });
	});

	it("a MIC no known quirk explains: MIC_MISMATCH without a hint", async () => {
		const id = await partner("MIC-OTHER", { sign: true }, (request) =>
			sync(mdnFor(request, { disposition: "processed", mic: micOf(Buffer.from("other content"), "sha256") })),
		);
		const message = await send(id, "ISA*00*LF~\nST*850*0001~\n");
		expect(message).toMatchObject({ status: "failed", error_code: "MIC_MISMATCH", error_hint: null });
	});

	it("an async MDN gets the same hint, and message.failed carries it", async () => {
		const id = await partner(
			"MIC-ASYNC",
			{ sign: true, mdn_mode: "async", mdn: { signed: true, url: "https://hints.example/as2/receive" } },
			() => ({ status: 200, body: "accepted; MDN follows" }),
		);
		const awaiting = await send(id, X12, ["sent"]);
		const request = partners.lastRequest("MIC-ASYNC")!;
		const mdn = mdnFor(request, { disposition: "processed", mic: micOf(signedPart(request), "sha512") });
		const posted = await t.app.request("/as2/receive", {
			method: "POST",
			headers: mdn.headers,
			body: new Uint8Array(mdn.body),
		});
		expect(posted.status, await posted.text()).toBe(200);
		const failed = (await t.call("GET", `/v1/messages/${awaiting.id}`, { token: key })).json.data;
		expect(failed).toMatchObject({ status: "failed", error_code: "MIC_MISMATCH" });
		expect(failed.error_hint).toMatchObject({ setting: "mdn.algorithm", value: "sha512" });
		const accountId = (await t.store.messages.getById(awaiting.id))!.accountId;
		const events = await t.store.events.list({ accountId, kind: "message.failed" });
		const event = events.find((e) => e.data.id === awaiting.id);
		expect(event?.data.error_hint).toEqual(failed.error_hint);
	});
});

/** A partner's negative MDN for every request: its disposition and human-readable text. */
const refusing = (disposition: string, text?: string) => (request: PartnerRequest) =>
	sync(mdnFor(request, { disposition, ...(text ? { text } : {}) }));

describe("a negative MDN a known quirk explains", () => {
	it("its text names the signed attributes (IBM Sterling, pyas2-lib#76): signed_attributes false, profile ibm-sterling", async () => {
		const id = await partner(
			"NEG-SIGNEDATTRS",
			{ sign: true, compatibility: { transfer_encoding: "base64" } },
			refusing(
				"processed/error: authentication-failed",
				"Signature verification failed: signed attributes are not supported",
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

	it("its text names the RFC 6211 attribute (Sterling, DataPower): algorithm_protection false", async () => {
		const id = await partner(
			"NEG-ALGPROT",
			{ sign: true },
			refusing(
				"processed/error: authentication-failed",
				"unsupported attribute 1.2.840.113549.1.9.52 (CMSAlgorithmProtection)",
			),
		);
		const message = await send(id);
		expect(message.error_hint).toMatchObject({ setting: "compatibility.algorithm_protection", value: false });
	});

	it("authentication-failed on binary parts (django-pyas2#5): transfer_encoding base64; on base64 parts with signed attributes: signed_attributes false; with neither: no hint", async () => {
		const binary = await send(
			await partner("NEG-AUTH-BIN", { sign: true }, refusing("processed/error: authentication-failed")),
		);
		expect(binary.error_hint).toMatchObject({
			setting: "compatibility.transfer_encoding",
			value: "base64",
			profile: "axway",
		});
		const base64 = await send(
			await partner(
				"NEG-AUTH-B64",
				{ sign: true, compatibility: { transfer_encoding: "base64" } },
				refusing("processed/error: authentication-failed"),
			),
		);
		expect(base64.error_hint).toMatchObject({ setting: "compatibility.signed_attributes", value: false });
		const sterling = await send(
			await partner(
				"NEG-AUTH-STERLING",
				{ sign: true, compatibility: { profile: "ibm-sterling", transfer_encoding: "base64" } },
				refusing("processed/error: authentication-failed"),
			),
		);
		expect(sterling).toMatchObject({ status: "failed", error_code: "AUTHENTICATION_FAILED", error_hint: null });
	});

	it.each([
		["oaep-sha256", "AES256_CBC", { setting: "compatibility.key_encryption", value: "oaep" }],
		["oaep-sha512", "AES128_CBC", { setting: "compatibility.key_encryption", value: "oaep" }],
		["oaep", "AES256_CBC", { setting: "compatibility.key_encryption", value: "rsa" }],
		["rsa", "AES256_GCM", { setting: "encrypt_algorithm", value: "AES256_CBC" }],
		["rsa", "AES256_CBC", null],
	] as const)("decryption-failed with key_encryption %s and %s: %j", async (keyEncryption, cipher, hint) => {
		const as2Id = `NEG-DECRYPT-${keyEncryption}-${cipher}`.toUpperCase().replace(/_/g, "-");
		const id = await partner(
			as2Id,
			{ sign: false, encrypt: true, encrypt_algorithm: cipher, compatibility: { key_encryption: keyEncryption } },
			refusing("processed/error: decryption-failed"),
		);
		const message = await send(id);
		expect(message).toMatchObject({ status: "failed", error_code: "DECRYPTION_FAILED" });
		if (hint === null) expect(message.error_hint).toBeNull();
		else expect(message.error_hint).toMatchObject(hint);
	});
});

describe("an HTTP refusal a known quirk explains", () => {
	it("HTTP 400 naming Content-Transfer-Encoding (OpenAS2 HowTo, Binary Encoding): transfer_encoding base64", async () => {
		const id = await partner("HTTP-CTE", { sign: true }, () => ({
			status: 400,
			body: "Bad Request: missing Content-Transfer-Encoding header",
		}));
		const message = await send(id);
		expect(message).toMatchObject({ status: "failed", error_code: "PARTNER_REJECTED" });
		expect(message.error_hint).toMatchObject({ setting: "compatibility.transfer_encoding", value: "base64" });
	});

	it("HTTP 411 Length Required to a chunked body (OpenAS2 HowTo §17.5): chunked false", async () => {
		const id = await partner("HTTP-CHUNKED", { sign: true, compatibility: { chunked: true } }, (request) => {
			expect(request.headers["transfer-encoding"]).toBe("chunked");
			return { status: 411, body: "Length Required" };
		});
		const message = await send(id);
		expect(message.error_hint).toMatchObject({ setting: "compatibility.chunked", value: false });
	});

	it("an HTTP 400 no quirk explains: PARTNER_REJECTED without a hint", async () => {
		const id = await partner("HTTP-OTHER", { sign: true }, () => ({ status: 400, body: "unknown trading partner" }));
		expect(await send(id)).toMatchObject({ status: "failed", error_code: "PARTNER_REJECTED", error_hint: null });
	});
});

describe("POST /v1/partners/{id}/test and /validate report the same hints", () => {
	it("/test: a decryption failure under OAEP SHA-256, a MIC in another digest, an HTTP 411", async () => {
		const cases = [
			{
				as2Id: "TEST-OAEP",
				settings: { sign: true, encrypt: true, compatibility: { key_encryption: "oaep-sha256" } },
				answer: refusing("processed/error: decryption-failed"),
				step: "mdn",
				hint: { setting: "compatibility.key_encryption", value: "oaep" },
			},
			{
				as2Id: "TEST-MIC",
				settings: { sign: true },
				answer: (request: PartnerRequest) =>
					sync(mdnFor(request, { disposition: "processed", mic: micOf(signedPart(request), "sha512") })),
				step: "mdn",
				hint: { setting: "mdn.algorithm", value: "sha512" },
			},
			{
				as2Id: "TEST-CHUNKED",
				settings: { sign: true, compatibility: { chunked: true } },
				answer: () => ({ status: 411, body: "Length Required" }),
				step: "transmit",
				hint: { setting: "compatibility.chunked", value: false },
			},
		];
		for (const c of cases) {
			const id = await partner(c.as2Id, c.settings, c.answer);
			const tested = await t.call("POST", `/v1/partners/${id}/test`, { token: key, body: { test_type: "mdn" } });
			expect(tested.status, tested.text).toBe(200);
			expect(tested.json.success, c.as2Id).toBe(false);
			expect(tested.json.data.results.hint, c.as2Id).toMatchObject(c.hint);
			const step = tested.json.data.timeline.find((s: { step: string }) => s.step === c.step);
			expect(step, c.as2Id).toMatchObject({ status: "failure", details: { hint: c.hint } });
		}
	});

	it("/test that passes has no hint", async () => {
		const id = await partner("TEST-OK", { sign: true }, (request) =>
			sync(mdnFor(request, { disposition: "processed", mic: micOf(signedPart(request), "sha256") })),
		);
		const tested = await t.call("POST", `/v1/partners/${id}/test`, { token: key, body: { test_type: "mdn" } });
		expect(tested.json).toMatchObject({ success: true, data: { results: { hint: null } } });
	});

	it("/validate lists the hints of the partner's latest failures, one per setting, most frequent first", async () => {
		let n = 0;
		const id = await partner("VALIDATE-HINTS", { sign: true }, (request) =>
			++n <= 2
				? refusing("processed/error: authentication-failed", "signed attributes not allowed")(request)
				: { status: 400, body: "Content-Transfer-Encoding missing" },
		);
		const failures = [await send(id), await send(id), await send(id)];
		expect(failures.map((m) => m.error_hint?.setting)).toEqual([
			"compatibility.signed_attributes",
			"compatibility.signed_attributes",
			"compatibility.transfer_encoding",
		]);
		const validated = await t.call("POST", `/v1/partners/${id}/validate`, { token: key });
		expect(validated.status, validated.text).toBe(200);
		expect(validated.json.hints).toEqual([
			expect.objectContaining({
				setting: "compatibility.signed_attributes",
				value: false,
				profile: "ibm-sterling",
				messages: 2,
				last_message_id: failures[1].id,
			}),
			expect.objectContaining({
				setting: "compatibility.transfer_encoding",
				value: "base64",
				messages: 1,
				last_message_id: failures[2].id,
			}),
		]);
		const quiet = await partner("VALIDATE-QUIET", { sign: true }, () => ({ status: 200, body: "" }));
		expect((await t.call("POST", `/v1/partners/${quiet}/validate`, { token: key })).json.hints).toEqual([]);
	});
});
