import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCertificates } from "../helpers/certs.ts";
import { type Peer, startPeer } from "../helpers/peers.ts";
import { createTestPki, type TestPki } from "../helpers/tls.ts";

/**
 * AS2 messages built by the OpenSSL CLI (an independent peer) posted to /as2/receive: they are
 * received byte-exact, and the signed sync MDN we answer verifies with `openssl cms -verify`
 * and carries the MIC of the signed bytes.
 */
let pki: TestPki;
let peer: Peer;
const certs = makeCertificates();
const sender = certs.selfSigned("openssl-sender");
const dir = certs.dir;
let ourCertPath: string;
const PAYLOAD = "ISA*00*          *00*          *ZZ*OSSL*ZZ*BETA~\r\nST*850*0001~\r\n";

beforeAll(async () => {
	pki = createTestPki();
	peer = await startPeer("Beta", pki);
	const partner = await peer.call("POST", "/v1/partners", {
		name: "OpenSSL",
		as2_id: "OSSL",
		url: "https://ossl.example/as2",
	});
	await peer.call("POST", `/v1/partners/${partner.json.data.id}/certificates`, {
		name: "ossl",
		usage: "both",
		certificate: sender.certPem,
	});
	ourCertPath = join(dir, "beta.pem");
	writeFileSync(ourCertPath, peer.identityPem);
	writeFileSync(join(dir, "entity.txt"), `Content-Type: application/edi-x12\r\n\r\n${PAYLOAD}`);
});
afterAll(async () => {
	await peer.server.close();
});

const openssl = (args: string[]) => execFileSync("openssl", args, { stdio: ["ignore", "pipe", "pipe"] });

/** Splits an S/MIME file into the HTTP headers (its header block) and the body, as an AS2 sender does. */
function asHttp(file: string): { headers: Record<string, string>; body: Buffer } {
	const raw = readFileSync(join(dir, file));
	const end =
		raw.indexOf("\n\n") >= 0 && (raw.indexOf("\r\n\r\n") < 0 || raw.indexOf("\n\n") < raw.indexOf("\r\n\r\n"))
			? raw.indexOf("\n\n") + 2
			: raw.indexOf("\r\n\r\n") + 4;
	const headers: Record<string, string> = {};
	const text = raw
		.subarray(0, end)
		.toString("latin1")
		.replace(/\r?\n[ \t]+/g, " ");
	for (const line of text.split(/\r?\n/)) {
		const colon = line.indexOf(":");
		if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
	}
	return { headers, body: raw.subarray(end) };
}

function build(
	kind: "signed" | "signed+encrypted" | "encrypted",
	stream: boolean,
): { headers: Record<string, string>; body: Buffer; signedPart: Buffer | null } {
	const streaming = stream ? ["-stream"] : [];
	openssl([
		"cms",
		"-sign",
		"-in",
		join(dir, "entity.txt"),
		"-signer",
		sender.certPath,
		"-inkey",
		sender.keyPath,
		"-md",
		"sha256",
		"-binary",
		"-outform",
		"SMIME",
		"-out",
		join(dir, "signed.eml"),
		...streaming,
	]);
	let signedPart: Buffer | null = null;
	if (kind !== "encrypted") {
		const signed = asHttp("signed.eml");
		const boundary = /boundary="?([^";]+)"?/.exec(signed.headers["content-type"]!)![1]!;
		signedPart = firstPart(signed.body, boundary);
	}
	if (kind === "signed") return { ...asHttp("signed.eml"), signedPart };
	const input = kind === "encrypted" ? join(dir, "entity.txt") : join(dir, "signed.eml");
	openssl([
		"cms",
		"-encrypt",
		"-in",
		input,
		"-aes256",
		"-binary",
		"-outform",
		"SMIME",
		"-out",
		join(dir, "enc.eml"),
		...streaming,
		ourCertPath,
	]);
	return { ...asHttp("enc.eml"), signedPart };
}

/** RFC 2046 §5.1.1: a part runs from after its delimiter line to before the line end preceding the next delimiter. */
function firstPart(body: Buffer, boundary: string): Buffer {
	const delimiter = Buffer.from(`--${boundary}`);
	const open = body.indexOf(delimiter);
	const start = body.indexOf("\n", open) + 1;
	const next = body.indexOf(delimiter, start);
	const end = body[next - 2] === 0x0d ? next - 2 : next - 1;
	return body.subarray(start, end);
}

async function post(message: { headers: Record<string, string>; body: Buffer }, id: string) {
	return peer.server.app.request("/as2/receive", {
		method: "POST",
		headers: {
			...message.headers,
			"as2-version": "1.0",
			"as2-from": "OSSL",
			"as2-to": peer.as2Id,
			"message-id": `<${id}@openssl.test>`,
			"disposition-notification-to": "mdn@openssl.test",
			"disposition-notification-options":
				"signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256",
		},
		body: new Uint8Array(message.body),
	});
}

describe("messages built by openssl cms", () => {
	for (const kind of ["signed", "signed+encrypted", "encrypted"] as const) {
		for (const stream of [false, true]) {
			it(`${kind}${stream ? " (-stream, BER)" : ""}: received byte-exact; the MDN verifies with openssl and carries our MIC`, async () => {
				const message = build(kind, stream);
				const id = `${kind}-${stream}-${Date.now()}`;
				const response = await post(message, id);
				expect(response.status).toBe(200);
				const mdnType = response.headers.get("content-type")!;
				expect(mdnType).toMatch(/^multipart\/signed/);
				const mdnBody = Buffer.from(await response.arrayBuffer());
				writeFileSync(join(dir, "mdn.eml"), Buffer.concat([Buffer.from(`Content-Type: ${mdnType}\r\n\r\n`), mdnBody]));
				// -noverify: our generated identity is self-signed, not from a CA; the signature itself is checked.
				const report = openssl([
					"cms",
					"-verify",
					"-in",
					join(dir, "mdn.eml"),
					"-inform",
					"SMIME",
					"-certfile",
					ourCertPath,
					"-noverify",
				]).toString("latin1");
				expect(report).toMatch(/Disposition: automatic-action\/MDN-sent-automatically; processed\r?\n/);
				expect(report).toContain(`Original-Message-ID: <${id}@openssl.test>`);
				const mic = /Received-Content-MIC: ([^,\r\n]+), sha-256/.exec(report)?.[1];
				if (message.signedPart) {
					// RFC 4130 §7.3.1: the MIC covers the signed entity, headers included.
					expect(mic).toBe(createHash("sha256").update(message.signedPart).digest("base64"));
				} else {
					// Encrypted, unsigned: the MIC covers the decrypted entity, which is entity.txt exactly.
					expect(mic).toBe(
						createHash("sha256")
							.update(readFileSync(join(dir, "entity.txt")))
							.digest("base64"),
					);
				}
				const stored = await peer.server.store.messages.findByMessageId(peer.tenantId, `${id}@openssl.test`, {
					direction: "inbound",
				});
				expect(stored).toMatchObject({
					status: "received",
					signed: kind !== "encrypted",
					encrypted: kind !== "signed",
					contentType: "application/edi-x12",
				});
				const payload = Buffer.from(
					await new Response(await peer.server.service.deps.blobs.get(stored!.payloadKey!)).arrayBuffer(),
				);
				expect(payload.toString("latin1")).toBe(PAYLOAD);
			});
		}
	}
});
