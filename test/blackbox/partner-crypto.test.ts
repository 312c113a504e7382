/**
 * Issue #17 defects 2 and 3 against the built server over real sockets, with the partner
 * played by the OpenSSL CLI.
 *
 * - RSAES-OAEP parameters: a partner endpoint on 127.0.0.1 captures what we POST and
 *   `openssl cms -decrypt` reads it, for `rsa`, `oaep` (RFC 3560's defaults, SHA-1 and
 *   MGF1-SHA-1), `oaep-sha256`, `oaep-sha384`, `oaep-sha512`; and messages encrypted by
 *   `openssl cms -encrypt -keyopt rsa_padding_mode:oaep [-keyopt rsa_oaep_md:H -keyopt
 *   rsa_mgf1_md:H]` are received, the parameter set named in the message's layers.
 * - Line ends damaged after signing (mendelson, IBM Sterling captures; phase2#12; pyas2-lib
 *   PR #8; as2-anchors §C.3, §D1): signed by `openssl cms -sign -binary` in one form, posted in the other with fetch,
 *   a raw node:net socket and curl; received with `signature_variant`, the signed MDN's MIC
 *   over the bytes that were signed; tampered, truncated and forged ones refused, never a 500.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
	type DamageOptions,
	lineEndingDamaged,
	micOf,
} from "../../packages/as2-core/test/helpers/line-ending-fixtures.ts";
import { makeCertificates } from "../../packages/server/test/helpers/certs.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, createKey, curl, rawRequest, register } from "./clients.ts";

const certs = makeCertificates();
const partnerIdentity = certs.selfSigned("bb-crypto-partner");
const stranger = certs.selfSigned("bb-crypto-stranger");
const PAYLOAD = "ISA*00*          *00*          *ZZ*OURS*ZZ*OSSL~\r\nST*850*0001~\r\n";
const OAEP_SETS = [
	["rsa", undefined],
	["oaep", "sha1"],
	["oaep-sha256", "sha256"],
	["oaep-sha384", "sha384"],
	["oaep-sha512", "sha512"],
] as const;

let server: BuiltServer;
let partnerEndpoint: Server;
const captured: Buffer[] = [];
let liveKey: string;
let tenantAs2Id: string;
let ourCertPath: string;
let encryptingPartnerId: string;

const openssl = (args: string[]) => execFileSync("openssl", args, { stdio: ["ignore", "pipe", "pipe"] });

beforeAll(async () => {
	// The partner's AS2 endpoint: keeps each body and answers 200 (no MDN asked).
	partnerEndpoint = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on("data", (chunk: Buffer) => chunks.push(chunk));
		req.on("end", () => {
			captured.push(Buffer.concat(chunks));
			res.writeHead(200, { "content-type": "text/plain" }).end("received");
		});
	});
	await new Promise<void>((resolve) => partnerEndpoint.listen(0, "127.0.0.1", resolve));
	server = await startBuiltServer({
		env: { AS2_ALLOW_HTTP: "1", AS2_ALLOW_PRIVATE_TARGETS: "1", AS2_DEFAULT_PLAN: "professional" },
	});
	const user = await register(server.base);
	liveKey = await createKey(server.base, user.token, { scope: "account", environment: "live", permissions: ["*"] });
	tenantAs2Id = (await call(server.base, "GET", `/v1/tenants/${user.tenantId}`, { token: liveKey })).json.data.as2_id;
	const identity = await call(server.base, "GET", `/v1/certificates?type=identity&tenant_id=${user.tenantId}`, {
		token: liveKey,
	});
	ourCertPath = join(certs.dir, "ours.pem");
	writeFileSync(ourCertPath, identity.json.data[0].certificate_pem);
	// Encrypt only: what comes in from it must be encrypted, not signed.
	encryptingPartnerId = await createPartner("OSSLCRYPT", partnerIdentity, { sign: false, encrypt: true });
	await createPartner("LINEENDS", partnerIdentity, { sign: true, encrypt: false, mdn_mode: "sync" });
});
afterAll(async () => {
	await server?.stop();
	await new Promise<void>((resolve) => partnerEndpoint?.close(() => resolve()));
	rmSync(certs.dir, { recursive: true, force: true });
});

async function createPartner(
	as2Id: string,
	identity: { certPem: string },
	flags: Record<string, unknown>,
): Promise<string> {
	const created = await call(server.base, "POST", "/v1/partners", {
		token: liveKey,
		body: {
			name: as2Id,
			as2_id: as2Id,
			url: `http://127.0.0.1:${(partnerEndpoint.address() as AddressInfo).port}/as2`,
			mdn_mode: "none",
			...flags,
		},
	});
	expect(created.status, created.text).toBe(201);
	const id = created.json.data.id;
	const certificate = await call(server.base, "POST", `/v1/partners/${id}/certificates`, {
		token: liveKey,
		body: { name: "partner", usage: "both", certificate: identity.certPem },
	});
	expect(certificate.status, certificate.text).toBe(201);
	return id;
}

/**
 * The inbound message's detail; undefined when none was stored. A message without a sync MDN
 * may be processed after the 200 answer: bounded polling (30 s) until it leaves processing.
 * `wait` false: one look (after a sync MDN the processing is over).
 */
// biome-ignore lint/suspicious/noExplicitAny: the message detail as JSON
async function inboundByMessageId(messageId: string, wait = true): Promise<any> {
	// biome-ignore lint/suspicious/noExplicitAny: the message detail as JSON
	let last: any;
	for (let i = 0; i < 300; i++) {
		const list = await call(
			server.base,
			"GET",
			`/v1/messages?direction=inbound&search=${encodeURIComponent(messageId)}`,
			{ token: liveKey },
		);
		expect(list.status, list.text).toBe(200);
		const found = list.json.data.find((m: { message_id: string }) => m.message_id === messageId);
		last = found
			? (await call(server.base, "GET", `/v1/messages/${found.id}`, { token: liveKey })).json.data
			: undefined;
		if (!wait || (last && !["queued", "processing", "receiving"].includes(last.status))) return last;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	return last;
}

/** The keyEncryptionAlgorithm as `openssl cms -cmsout -print` shows it, whitespace folded. */
function printedKeyEncryption(file: string): string {
	const printed = openssl(["cms", "-cmsout", "-print", "-inform", "DER", "-in", file])
		.toString("latin1")
		.replace(/\s+/g, " ");
	return /keyEncryptionAlgorithm:(.*?)encryptedKey:/.exec(printed)?.[1] ?? "";
}

describe("RSAES-OAEP parameters, outbound: openssl cms -decrypt reads what we send", () => {
	for (const [name, hash] of OAEP_SETS) {
		it(`key_encryption ${name}`, async () => {
			const patched = await call(server.base, "PATCH", `/v1/partners/${encryptingPartnerId}`, {
				token: liveKey,
				body: { encrypt_algorithm: "AES256_CBC", compatibility: { key_encryption: name } },
			});
			expect(patched.status, patched.text).toBe(200);
			const before = captured.length;
			const sent = await call(server.base, "POST", "/v1/messages", {
				token: liveKey,
				body: { partner_id: encryptingPartnerId, content_type: "application/edi-x12", payload: { content: PAYLOAD } },
			});
			expect(sent.status, sent.text).toBe(202);
			for (let i = 0; i < 300 && captured.length === before; i++) await new Promise((r) => setTimeout(r, 100));
			expect(captured.length, "the partner got the message within 30 s").toBe(before + 1);
			const file = join(certs.dir, `out-${name}.der`);
			writeFileSync(file, captured[before]!);
			const algorithm = printedKeyEncryption(file);
			if (name === "rsa") expect(algorithm).toContain("rsaEncryption");
			else if (hash === "sha1")
				expect(algorithm).toMatch(/rsaesOaep .*parameter: SEQUENCE: 0:d=0 hl=2 l= 0 cons: SEQUENCE $/);
			else expect(algorithm).toMatch(new RegExp(`rsaesOaep .*OBJECT :${hash} .*OBJECT :mgf1 .*OBJECT :${hash} `));
			const decrypted = openssl([
				"cms",
				"-decrypt",
				"-binary",
				"-inform",
				"DER",
				"-in",
				file,
				"-inkey",
				partnerIdentity.keyPath,
				"-recip",
				partnerIdentity.certPath,
			]);
			expect(decrypted.toString("latin1")).toContain(PAYLOAD);
			server.assertAlive();
		});
	}
});

describe("RSAES-OAEP parameters, inbound: what openssl cms -encrypt sends is received", () => {
	for (const [name, hash] of OAEP_SETS) {
		it(`${name}${hash && hash !== "sha1" ? ` (rsa_oaep_md:${hash}, rsa_mgf1_md:${hash})` : ""}, posted with fetch`, async () => {
			const entity = join(certs.dir, `in-${name}.txt`);
			writeFileSync(entity, `Content-Type: application/edi-x12\r\n\r\n${PAYLOAD}`);
			const keyopts =
				name === "rsa"
					? []
					: [
							"-keyopt",
							"rsa_padding_mode:oaep",
							...(hash === "sha1" ? [] : ["-keyopt", `rsa_oaep_md:${hash}`, "-keyopt", `rsa_mgf1_md:${hash}`]),
						];
			const body = openssl([
				"cms",
				"-encrypt",
				"-binary",
				"-aes128",
				"-outform",
				"DER",
				"-in",
				entity,
				"-recip",
				ourCertPath,
				...keyopts,
			]);
			const messageId = `oaep-${name}-${randomUUID()}@openssl.test`;
			const response = await fetch(`${server.base}/as2/receive`, {
				method: "POST",
				headers: {
					"Content-Type": 'application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"',
					"AS2-Version": "1.2",
					"AS2-From": "OSSLCRYPT",
					"AS2-To": tenantAs2Id,
					"Message-ID": `<${messageId}>`,
				},
				body: new Uint8Array(body),
				signal: AbortSignal.timeout(30_000),
			});
			expect(response.status, await response.text()).toBe(200);
			const message = await inboundByMessageId(messageId);
			expect(message).toMatchObject({ status: "received", encrypted: true });
			expect(message.details.layers[0]).toMatchObject({ kind: "encrypted", keyEncryption: name });
		});
	}
});

describe("RSAES-OAEP with an MGF1 hash of its own, inbound", () => {
	// Java's OAEPWithSHA-256AndMGF1Padding (SunJCE) is SHA-256 with MGF1-SHA-1 (RFC 4055 §4.1
	// allows the pair); OpenSSL writes it with rsa_oaep_md:sha256 and rsa_mgf1_md:sha1.
	it("SHA-256 with MGF1-SHA-1, posted with curl: received, named oaep-sha256-mgf1-sha1", async () => {
		const entity = join(certs.dir, "in-mixed.txt");
		writeFileSync(entity, `Content-Type: application/edi-x12\r\n\r\n${PAYLOAD}`);
		const file = join(certs.dir, "in-mixed.der");
		openssl([
			"cms",
			"-encrypt",
			"-binary",
			"-aes128",
			"-outform",
			"DER",
			"-in",
			entity,
			"-out",
			file,
			"-recip",
			ourCertPath,
			"-keyopt",
			"rsa_padding_mode:oaep",
			"-keyopt",
			"rsa_oaep_md:sha256",
			"-keyopt",
			"rsa_mgf1_md:sha1",
		]);
		const messageId = `oaep-mixed-${randomUUID()}@openssl.test`;
		const result = await curl([
			"--data-binary",
			`@${file}`,
			"-H",
			'Content-Type: application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"',
			"-H",
			"AS2-Version: 1.2",
			"-H",
			"AS2-From: OSSLCRYPT",
			"-H",
			`AS2-To: ${tenantAs2Id}`,
			"-H",
			`Message-ID: <${messageId}>`,
			"-w",
			"\n%{http_code}",
			`${server.base}/as2/receive`,
		]);
		expect(result.stdout.trim().split("\n").at(-1), result.stdout).toBe("200");
		const message = await inboundByMessageId(messageId);
		expect(message).toMatchObject({ status: "received", encrypted: true });
		expect(message.details.layers[0]).toMatchObject({ keyEncryption: "oaep-sha256-mgf1-sha1" });
	});
});

describe("signatures over line-ending-damaged content", () => {
	function damaged(options: Pick<DamageOptions, "signedForm" | "deliveredForm" | "tamper">, signer = partnerIdentity) {
		const messageId = `lineends-${randomUUID()}`;
		const fixture = lineEndingDamaged({
			...options,
			keyPath: signer.keyPath,
			certPath: signer.certPath,
			dir: certs.dir,
			to: tenantAs2Id,
			messageId,
		});
		return { ...fixture, messageId: `${messageId}@partner.example` };
	}

	/** The signed sync MDN, verified with `openssl cms -verify`; its text. */
	function readMdn(contentType: string, body: Buffer): string {
		const file = join(certs.dir, `mdn-${randomUUID()}.eml`);
		writeFileSync(file, Buffer.concat([Buffer.from(`Content-Type: ${contentType}\r\n\r\n`), body]));
		return openssl(["cms", "-verify", "-in", file, "-inform", "SMIME", "-certfile", ourCertPath, "-noverify"]).toString(
			"latin1",
		);
	}

	/** Splits a raw HTTP response into its Content-Type and body (Content-Length framed). */
	function httpParts(raw: string): { contentType: string; body: Buffer } {
		const end = raw.indexOf("\r\n\r\n");
		const head = raw.slice(0, end);
		const contentType = /^content-type: (.*)$/im.exec(head)?.[1]?.trim() ?? "";
		return { contentType, body: Buffer.from(raw.slice(end + 4), "latin1") };
	}

	it("signed CRLF, delivered LF, posted with fetch: received as crlf, MDN MIC over the signed bytes", async () => {
		const message = damaged({ signedForm: "crlf", deliveredForm: "lf" });
		const response = await fetch(`${server.base}/as2/receive`, {
			method: "POST",
			headers: message.headers,
			body: new Uint8Array(message.body),
			signal: AbortSignal.timeout(30_000),
		});
		expect(response.status).toBe(200);
		const mdn = readMdn(response.headers.get("content-type") ?? "", Buffer.from(await response.arrayBuffer()));
		expect(mdn).toMatch(/Disposition: automatic-action\/MDN-sent-automatically; processed\r?\n/);
		expect(mdn).toContain(`Received-Content-MIC: ${micOf(message.signed)}`);
		expect(await inboundByMessageId(message.messageId)).toMatchObject({
			status: "received",
			signed: true,
			mic: micOf(message.signed),
			details: { signature_variant: "crlf" },
		});
	});

	it("signed LF, delivered CRLF, posted over a raw socket: received as lf", async () => {
		const message = damaged({ signedForm: "lf", deliveredForm: "crlf" });
		const head = `POST /as2/receive HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${Object.entries(
			message.headers,
		)
			.map(([name, value]) => `${name}: ${value}\r\n`)
			.join("")}\r\n`;
		const response = await rawRequest(server.port, head, [message.body]);
		expect(response.status, response.raw).toBe(200);
		const { contentType, body } = httpParts(response.raw);
		expect(readMdn(contentType, body)).toContain(`Received-Content-MIC: ${micOf(message.signed)}`);
		expect(await inboundByMessageId(message.messageId)).toMatchObject({
			status: "received",
			details: { signature_variant: "lf" },
		});
	});

	it("tampered and damaged, posted with curl: verifies under no form, a negative MDN, not received", async () => {
		const message = damaged({ signedForm: "crlf", deliveredForm: "lf", tamper: true });
		const file = join(certs.dir, `tampered-${randomUUID()}.bin`);
		writeFileSync(file, message.body);
		const headersFile = join(certs.dir, `tampered-${randomUUID()}.headers`);
		const result = await curl([
			"--data-binary",
			`@${file}`,
			...Object.entries(message.headers).flatMap(([name, value]) => ["-H", `${name}: ${value}`]),
			"-D",
			headersFile,
			"-w",
			"\n%{http_code}",
			`${server.base}/as2/receive`,
		]);
		expect(result.code).toBe(0);
		expect(result.stdout.trim().split("\n").at(-1)).toBe("200");
		expect(result.stdout).toMatch(/integrity-check-failed/);
		expect((await inboundByMessageId(message.messageId, false))?.status).not.toBe("received");
		server.assertAlive();
	});

	it("damaged and signed by a stranger: authentication-failed, not received", async () => {
		const message = damaged({ signedForm: "crlf", deliveredForm: "lf" }, stranger);
		const response = await fetch(`${server.base}/as2/receive`, {
			method: "POST",
			headers: message.headers,
			body: new Uint8Array(message.body),
			signal: AbortSignal.timeout(30_000),
		});
		expect(response.status).toBe(200);
		expect(await response.text()).toMatch(/authentication-failed/);
		expect((await inboundByMessageId(message.messageId, false))?.status).not.toBe("received");
	});

	it("hostile: damaged with its signature part cut short or the connection reset mid-body: a clear answer, the server stays up", async () => {
		const message = damaged({ signedForm: "crlf", deliveredForm: "lf" });
		const cut = message.body.subarray(0, message.body.byteLength - 200);
		const headers = { ...message.headers, "Content-Length": String(cut.byteLength) };
		const response = await fetch(`${server.base}/as2/receive`, {
			method: "POST",
			headers,
			body: new Uint8Array(cut),
			signal: AbortSignal.timeout(30_000),
		});
		expect(response.status).toBeLessThan(500);
		const head = `POST /as2/receive HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(message.headers)
			.map(([name, value]) => `${name}: ${value}\r\n`)
			.join("")}\r\n`;
		const reset = await rawRequest(server.port, head, [message.body.subarray(0, 300)], { resetAfterWrite: true });
		expect(reset.status === null || reset.status < 500).toBe(true);
		const health = await call(server.base, "GET", "/health");
		expect(health.status).toBe(200);
		server.assertAlive();
	});
});
