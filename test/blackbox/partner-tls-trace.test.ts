/**
 * The TLS facts of each attempt against the built server over real sockets, on SQLite and
 * PostgreSQL (issue #18, attempts; issue #20: the peer certificate is read once per kept-alive
 * connection, not once per message). The partner is a Node HTTPS endpoint on 127.0.0.1 with a
 * self-signed certificate, trusted by its pin; messages follow one another, so the later ones
 * reuse the first one's connection, and every attempt must still name the certificate.
 */
import { X509Certificate } from "node:crypto";
import { rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { makeCertificates } from "../../packages/server/test/helpers/certs.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, liveTenant } from "./clients.ts";

const MESSAGES = 4;
const certs = makeCertificates();
const partnerKey = certs.selfSigned("bb-tls-partner");
const pin = new X509Certificate(partnerKey.certPem).fingerprint256.replaceAll(":", "").toLowerCase();

let server: BuiltServer;
let partner: Server;
let connections = 0;
let received = 0;
let liveKey: string;
let partnerId: string;

beforeAll(async () => {
	partner = createServer({ key: partnerKey.keyPem, cert: partnerKey.certPem }, (request, response) => {
		request.resume();
		request.on("end", () => {
			received++;
			response.writeHead(200, { "content-type": "text/plain" }).end("received");
		});
	});
	partner.on("secureConnection", () => connections++);
	await new Promise<void>((resolve) => partner.listen(0, "127.0.0.1", resolve));
	server = await startBuiltServer({ env: { AS2_ALLOW_PRIVATE_TARGETS: "1", AS2_DEFAULT_PLAN: "professional" } });
	({ liveKey } = await liveTenant(server.base));
	const created = await call(server.base, "POST", "/v1/partners", {
		token: liveKey,
		body: {
			name: "BB-TLS",
			as2_id: "BB-TLS",
			url: `https://127.0.0.1:${(partner.address() as AddressInfo).port}/as2`,
			mdn_mode: "none",
			tls: { ca_certificate: null, pinned_certificate_sha256: pin },
		},
	});
	expect(created.status, created.text).toBe(201);
	partnerId = created.json.data.id;
}, 120_000);

afterAll(async () => {
	await server?.stop();
	partner?.closeAllConnections();
	await new Promise((resolve) => partner?.close(resolve));
	rmSync(certs.dir, { recursive: true, force: true });
});

/** Bounded polling (30 s) until the message is out of the queue: sent (no MDN asked) or failed. */
async function settled(id: string): Promise<string> {
	let last = "";
	for (let i = 0; i < 300; i++) {
		const message = (await call(server.base, "GET", `/v1/messages/${id}`, { token: liveKey })).json.data;
		if (["sent", "delivered", "failed"].includes(message.status)) return message.status;
		last = message.status;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	throw new Error(`message ${id} is still ${last}`);
}

it("every attempt over a kept-alive TLS connection names the TLS version and the partner's certificate", async () => {
	const ids: string[] = [];
	// One after another: the agent keeps the connection 4 s idle, far longer than one delivery.
	for (let i = 0; i < MESSAGES; i++) {
		const sent = await call(server.base, "POST", "/v1/messages", {
			token: liveKey,
			body: { partner_id: partnerId, content_type: "application/edi-x12", payload: { content: `ISA*00*TLS${i}~\r\n` } },
		});
		expect(sent.status, sent.text).toBe(202);
		expect(await settled(sent.json.data.id)).toBe("sent");
		ids.push(sent.json.data.id);
	}
	expect(received).toBe(MESSAGES);
	// Some messages went over a connection opened for an earlier one (else this tests nothing new).
	expect(connections).toBeLessThan(MESSAGES);
	for (const id of ids) {
		const attempts = await call(server.base, "GET", `/v1/messages/${id}/attempts`, { token: liveKey });
		expect(attempts.status).toBe(200);
		expect(attempts.json.data).toHaveLength(1);
		expect(attempts.json.data[0]).toMatchObject({ outcome: "succeeded", peer_certificate_sha256: pin });
		expect(attempts.json.data[0].tls_version).toMatch(/^TLSv1\.[23]$/);
	}
});
