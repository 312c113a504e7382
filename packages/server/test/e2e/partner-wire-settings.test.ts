import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collect, parseCertificates, unpack } from "@as2kit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Background } from "../../src/service/jobs/background.ts";
import { makeCertificates } from "../helpers/certs.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";
import { createTestPki, type TestPki } from "../helpers/tls.ts";
import { type ReceivedRequest, type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";
import { eventually, startWorker } from "../helpers/worker.ts";

/**
 * The partner's wire settings (GET /v1/partners/{id}/configuration: `http.auth`, `http.headers`,
 * `compatibility`) and a message's own `headers` (POST /v1/messages) are what actually goes out:
 * live messages are POSTed to a local HTTPS receiver (the test CA as the partner's
 * `tls.ca_certificate`) that records each request as it arrived.
 */
let pki: TestPki;
let receiver: Receiver;
let t: TestApp;
let worker: Background;
let key: string;
let tenantAs2Id: string;
let identityPem: string;
let partnerId: string;
const scratch = mkdtempSync(join(tmpdir(), "as2kit-wire-"));
const PAYLOAD = "ISA*00*WIRE~\r\nST*850*0001~\r\nBEG*00*SA*4711~\r\n";

beforeAll(async () => {
	pki = createTestPki();
	receiver = await startReceiver(() => 200, {
		tls: { cert: readFileSync(pki.certPath), key: readFileSync(pki.keyPath) },
	});
	// The gateway is on loopback: the on-premise opt-in (AS2_ALLOW_PRIVATE_TARGETS=1).
	t = createTestApp({ defaultPlan: "professional", allowPrivateTargets: true });
	worker = startWorker(t);
	const owner = await register(t, "Wire Co");
	key = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "live",
		permissions: ["*"],
	});
	tenantAs2Id = (await t.call("GET", `/v1/tenants/${owner.tenantId}`, { token: owner.token })).json.data.as2_id;
	identityPem = (await t.call("GET", "/v1/certificates?type=identity", { token: key })).json.data[0].certificate_pem;
	const partner = await t.call("POST", "/v1/partners", {
		token: key,
		body: {
			name: "Gateway Partner",
			as2_id: "GATEWAY",
			url: receiver.url,
			tls: { ca_certificate: pki.caPem },
			sign: true,
			sign_algorithm: "SHA256withRSA",
			mdn_mode: "none",
		},
	});
	expect(partner.status, partner.text).toBe(201);
	partnerId = partner.json.data.id;
	const configured = await t.call("PATCH", `/v1/partners/${partnerId}`, {
		token: key,
		body: {
			http: {
				auth: { username: "gateway-user", password: "pa:ss wörd" },
				headers: { "X-Gateway-Key": "gk-123", "X-Routing": "edi-inbound" },
			},
		},
	});
	expect(configured.status, configured.text).toBe(200);
});
afterAll(async () => {
	await worker.stop();
	await t.close();
	await receiver.close();
	rmSync(pki.dir, { recursive: true, force: true });
	rmSync(scratch, { recursive: true, force: true });
});

/** Sends one live message and answers the request the receiver got for it, and the stored message. */
async function sendAndCapture(body: Record<string, unknown> = {}): Promise<{ request: ReceivedRequest; id: string }> {
	const before = receiver.requests.length;
	const sent = await t.call("POST", "/v1/messages", {
		token: key,
		body: {
			partner_id: partnerId,
			content_type: "application/edi-x12",
			subject: "PO 4711",
			payload: { content: PAYLOAD, filename: "po-4711.x12" },
			...body,
		},
	});
	expect(sent.status, sent.text).toBe(202);
	const id = sent.json.data.id as string;
	const record = await eventually(async () => {
		const m = await t.store.messages.getById(id);
		return m && (m.status === "sent" || m.status === "failed") ? m : null;
	}, `${id} to be sent`);
	expect(record.status, `${record.errorCode} ${record.errorMessage}`).toBe("sent");
	expect(receiver.requests.length).toBe(before + 1);
	const request = receiver.requests[before]!;
	// The request is the message we sent: its Message-ID (RFC 4130 §5.3.3: with angle brackets).
	expect(request.headers["message-id"]).toBe(`<${record.messageId}>`);
	return { request, id };
}

const header = (request: ReceivedRequest, name: string) => request.headers[name.toLowerCase()];

/** Reads the captured request as the partner would, trusting our identity as the signer. */
async function readAsPartner(request: ReceivedRequest) {
	const headers = Object.entries(request.headers).flatMap(([name, value]) =>
		value === undefined ? [] : [[name, Array.isArray(value) ? value.join(", ") : value] as [string, string]],
	);
	const unpacked = await unpack({
		headers,
		body: new Uint8Array(request.raw),
		partnerCertificates: [parseCertificates(identityPem)[0]!],
		requireSigned: true,
		at: t.clock.now(),
	});
	const payload = Buffer.from(await collect(unpacked.payload)).toString("latin1");
	return { unpacked, payload, report: await unpacked.complete() };
}

/** The first MIME part of a multipart/signed body: its header block and content (RFC 2046 §5.1.1). */
function firstPart(request: ReceivedRequest): { headers: string; content: Buffer } {
	const boundary = /boundary="?([^";]+)"?/.exec(String(header(request, "content-type")))![1]!;
	const body = request.raw;
	const open = body.indexOf(`--${boundary}`);
	const start = body.indexOf("\n", open) + 1;
	const next = body.indexOf(`\r\n--${boundary}`, start);
	const part = body.subarray(start, next);
	const split = part.indexOf("\r\n\r\n");
	return { headers: part.subarray(0, split).toString("latin1"), content: part.subarray(split + 4) };
}

/** OpenSSL's own reading of the SignedData (independent of our CMS code): signedAttrs present or <ABSENT>. */
function opensslSignerInfo(request: ReceivedRequest): string {
	const file = join(scratch, `m-${Date.now()}-${Math.random()}.eml`);
	writeFileSync(
		file,
		Buffer.concat([Buffer.from(`Content-Type: ${header(request, "content-type")}\r\n\r\n`), request.raw]),
	);
	return execFileSync("openssl", ["cms", "-cmsout", "-print", "-in", file, "-inform", "SMIME"], {
		stdio: ["ignore", "pipe", "pipe"],
	}).toString("latin1");
}

describe("the partner's HTTP settings are on every outbound AS2 POST", () => {
	it("the configuration shows them (password never), and the request carries Basic auth and the extra headers", async () => {
		const config = await t.call("GET", `/v1/partners/${partnerId}/configuration`, { token: key });
		expect(config.json.data.http).toEqual({
			auth: { username: "gateway-user", password_set: true },
			headers: { "X-Gateway-Key": "gk-123", "X-Routing": "edi-inbound" },
		});
		expect(config.text).not.toContain("pa:ss");
		const { request } = await sendAndCapture();
		// RFC 7617 §2: user-id ":" password, UTF-8, base64; the password may itself hold a colon.
		expect(header(request, "authorization")).toBe(
			`Basic ${Buffer.from("gateway-user:pa:ss wörd", "utf8").toString("base64")}`,
		);
		expect(header(request, "x-gateway-key")).toBe("gk-123");
		expect(header(request, "x-routing")).toBe("edi-inbound");
		expect(header(request, "as2-from")).toBe(tenantAs2Id);
		expect(header(request, "as2-to")).toBe("GATEWAY");
		expect(header(request, "content-length")).toBe(String(request.raw.byteLength));
		const { payload } = await readAsPartner(request);
		expect(payload).toBe(PAYLOAD);
	});

	it("a message's own headers go out too, and win over a partner header of the same name", async () => {
		const { request, id } = await sendAndCapture({
			headers: { "X-Order-Batch": "B-42", "X-Routing": "edi-urgent" },
		});
		expect(header(request, "x-order-batch")).toBe("B-42");
		expect(header(request, "x-routing")).toBe("edi-urgent");
		expect(header(request, "x-gateway-key")).toBe("gk-123");
		expect(header(request, "authorization")).toMatch(/^Basic /);
		const detail = await t.call("GET", `/v1/messages/${id}`, { token: key });
		expect(detail.json.data.headers).toMatchObject({ "X-Order-Batch": "B-42" });
	});

	it("without auth settings no Authorization header is sent", async () => {
		const cleared = await t.call("PATCH", `/v1/partners/${partnerId}`, { token: key, body: { http: { auth: null } } });
		expect(cleared.status, cleared.text).toBe(200);
		try {
			const { request } = await sendAndCapture();
			expect(header(request, "authorization")).toBeUndefined();
			expect(header(request, "x-gateway-key")).toBe("gk-123");
		} finally {
			await t.call("PATCH", `/v1/partners/${partnerId}`, {
				token: key,
				body: { http: { auth: { username: "gateway-user", password: "pa:ss wörd" } } },
			});
		}
	});
});

describe("compatibility switches change what is sent", () => {
	it("defaults: binary payload part, signed attributes present, Content-Length", async () => {
		const { request } = await sendAndCapture();
		const part = firstPart(request);
		expect(part.headers).toMatch(/^Content-Transfer-Encoding: binary$/im);
		expect(part.content.toString("latin1")).toBe(PAYLOAD);
		expect(header(request, "transfer-encoding")).toBeUndefined();
		const { report } = await readAsPartner(request);
		expect(report.signature?.hasSignedAttributes).toBe(true);
		const printed = opensslSignerInfo(request);
		expect(printed).toMatch(/object: messageDigest/);
		expect(printed).not.toMatch(/^\s*signedAttrs:\s*<ABSENT>/m);
	});

	it("transfer_encoding base64, signed_attributes off and chunked: a base64 part, a bare signature, chunked framing", async () => {
		const patched = await t.call("PATCH", `/v1/partners/${partnerId}`, {
			token: key,
			body: { compatibility: { transfer_encoding: "base64", signed_attributes: false, chunked: true } },
		});
		expect(patched.status, patched.text).toBe(200);
		const config = await t.call("GET", `/v1/partners/${partnerId}/configuration`, { token: key });
		expect(config.json.data.compatibility).toMatchObject({
			transfer_encoding: "base64",
			signed_attributes: false,
			chunked: true,
		});
		try {
			const { request } = await sendAndCapture();
			const part = firstPart(request);
			expect(part.headers).toMatch(/^Content-Transfer-Encoding: base64$/im);
			expect(part.content.toString("latin1")).not.toContain("ISA*00");
			expect(Buffer.from(part.content.toString("latin1"), "base64").toString("latin1")).toBe(PAYLOAD);
			// RFC 9112 §6.1: chunked framing instead of a Content-Length.
			expect(header(request, "transfer-encoding")).toBe("chunked");
			expect(header(request, "content-length")).toBeUndefined();
			const { payload, report } = await readAsPartner(request);
			expect(payload).toBe(PAYLOAD);
			// RFC 5652 §5.3: without signed attributes the signature covers the content digest directly.
			expect(report.signature?.hasSignedAttributes).toBe(false);
			const printed = opensslSignerInfo(request);
			expect(printed).toMatch(/^\s*signedAttrs:\s*<ABSENT>/m);
			expect(printed).not.toMatch(/object: messageDigest/);
		} finally {
			await t.call("PATCH", `/v1/partners/${partnerId}`, {
				token: key,
				body: { compatibility: { transfer_encoding: "binary", signed_attributes: true, chunked: false } },
			});
		}
	});
});

// issue #17, Compatibility profiles: the `ibm-sterling` profile is what goes out. Sterling rejects
// CMS signed attributes (pyas2-lib#76) and the RFC 6211 attribute (OpenAS2 HowTo §17.4):
// as2-anchors §C.5, §D.9. OpenSSL prints the SignerInfo as the partner receives it.
describe("compatibility.profile ibm-sterling: a signature without signed attributes on the wire", () => {
	it("the message to a partner on ibm-sterling has no signed attributes; the profile cleared, they are back", async () => {
		const patched = await t.call("PATCH", `/v1/partners/${partnerId}`, {
			token: key,
			// The test above set signed_attributes itself, which wins over any profile: null unsets it.
			body: { compatibility: { profile: "ibm-sterling", signed_attributes: null, algorithm_protection: null } },
		});
		expect(patched.status, patched.text).toBe(200);
		try {
			const { request } = await sendAndCapture();
			const { payload, report } = await readAsPartner(request);
			expect(payload).toBe(PAYLOAD);
			expect(report.signature?.hasSignedAttributes).toBe(false);
			const printed = opensslSignerInfo(request);
			expect(printed).toMatch(/^\s*signedAttrs:\s*<ABSENT>/m);
			expect(printed).not.toMatch(/CMSAlgorithmProtection|1\.2\.840\.113549\.1\.9\.52/);
		} finally {
			await t.call("PATCH", `/v1/partners/${partnerId}`, { token: key, body: { compatibility: { profile: null } } });
		}
		const { request } = await sendAndCapture();
		expect(opensslSignerInfo(request)).toMatch(/object: messageDigest/);
	});
});

// issue #17 defect 2 (as2-anchors §A, key transport RSA-OAEP: pyas2-lib 1.4.4, Cleo): `key_encryption:
// "oaep"` went out as SHA-256/MGF1-SHA-256, which pyas2-lib
// and every peer on RFC 3560's defaults answer with decryption-failed. The partner here is
// the OpenSSL CLI: `openssl cms -decrypt` of what was POSTed, and OpenSSL's own print of the
// RecipientInfo's RSAES-OAEP-params (RFC 4055 §4.1).
describe("compatibility.key_encryption: the partner decrypts with openssl cms -decrypt", () => {
	const certificates = makeCertificates();
	const partner = certificates.selfSigned("oaep-partner");
	const partnerKey = partner.keyPath;
	const partnerCert = partner.certPath;
	afterAll(() => rmSync(certificates.dir, { recursive: true, force: true }));
	beforeAll(async () => {
		const uploaded = await t.call("POST", `/v1/partners/${partnerId}/certificates`, {
			token: key,
			body: { name: "partner encryption", usage: "encryption", certificate: readFileSync(partnerCert, "utf8") },
		});
		expect(uploaded.status, uploaded.text).toBe(201);
	});

	for (const [name, hash] of [
		["oaep", undefined],
		["oaep-sha256", "sha256"],
		["oaep-sha384", "sha384"],
		["oaep-sha512", "sha512"],
		["rsa", undefined],
	] as const) {
		it(`${name}: ${hash ? `OAEP and MGF1 with ${hash}` : name === "oaep" ? "RFC 3560's defaults (SHA-1, MGF1-SHA-1)" : "PKCS#1 v1.5"}`, async () => {
			const patched = await t.call("PATCH", `/v1/partners/${partnerId}`, {
				token: key,
				body: { encrypt: true, encrypt_algorithm: "AES128_CBC", compatibility: { key_encryption: name } },
			});
			expect(patched.status, patched.text).toBe(200);
			const config = await t.call("GET", `/v1/partners/${partnerId}/configuration`, { token: key });
			expect(config.json.data.compatibility.key_encryption).toBe(name);
			try {
				const { request } = await sendAndCapture();
				const file = join(scratch, `oaep-${name}.der`);
				writeFileSync(file, request.raw);
				const printed = execFileSync("openssl", ["cms", "-cmsout", "-print", "-inform", "DER", "-in", file])
					.toString("latin1")
					.replace(/\s+/g, " ");
				const algorithm = /keyEncryptionAlgorithm:(.*?)encryptedKey:/.exec(printed)?.[1] ?? "";
				if (name === "rsa") expect(algorithm).toContain("rsaEncryption");
				else if (hash)
					expect(algorithm).toMatch(new RegExp(`rsaesOaep .*OBJECT :${hash} .*OBJECT :mgf1 .*OBJECT :${hash} `));
				else expect(algorithm).toMatch(/rsaesOaep .*parameter: SEQUENCE: 0:d=0 hl=2 l= 0 cons: SEQUENCE $/);
				const decrypted = execFileSync(
					"openssl",
					["cms", "-decrypt", "-binary", "-inform", "DER", "-in", file, "-inkey", partnerKey, "-recip", partnerCert],
					{ stdio: ["ignore", "pipe", "pipe"] },
				);
				expect(decrypted.toString("latin1")).toContain(PAYLOAD);
			} finally {
				await t.call("PATCH", `/v1/partners/${partnerId}`, {
					token: key,
					body: { encrypt: false, compatibility: { key_encryption: "rsa" } },
				});
			}
		});
	}
});
