import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DamageOptions, lineEndingDamaged, micOf } from "../../../as2-core/test/helpers/line-ending-fixtures.ts";
import { makeCertificates } from "../helpers/certs.ts";
import { type Peer, startPeer } from "../helpers/peers.ts";
import { createTestPki, type TestPki } from "../helpers/tls.ts";

/**
 * Issue #17 defect 3 at the server: a partner whose gateway changes line ends after signing
 * (mendelson, IBM Sterling captures; phase2#12; pyas2-lib PR #8; as2-anchors §C.3, §D1). The message is signed by the
 * OpenSSL CLI in one form and posted in the other; it is received, the form its signature
 * verified over is in the message details (`signature_variant`), and the signed MDN carries
 * the MIC of the bytes that were signed (RFC 4130 §7.3.1), checked with `openssl cms -verify`.
 */
let pki: TestPki;
let peer: Peer;
const certs = makeCertificates();
const sender = certs.selfSigned("lineends-sender");
let ourCertPath: string;

beforeAll(async () => {
	pki = createTestPki();
	peer = await startPeer("LineEnds", pki);
	const partner = await peer.call("POST", "/v1/partners", {
		name: "Line-end gateway",
		as2_id: "LINEENDS",
		url: "https://lineends.example/as2",
	});
	await peer.call("POST", `/v1/partners/${partner.json.data.id}/certificates`, {
		name: "gateway",
		usage: "both",
		certificate: sender.certPem,
	});
	ourCertPath = join(certs.dir, "ours.pem");
	writeFileSync(ourCertPath, peer.identityPem);
});
afterAll(async () => {
	await peer.server.close();
});

function damaged(options: Pick<DamageOptions, "signedForm" | "deliveredForm" | "tamper">, id: string) {
	return lineEndingDamaged({
		...options,
		keyPath: sender.keyPath,
		certPath: sender.certPath,
		dir: certs.dir,
		to: peer.as2Id,
		messageId: id,
	});
}

/** Posts the message and reads the signed sync MDN with the OpenSSL CLI. */
async function post(message: ReturnType<typeof damaged>) {
	const response = await peer.server.app.request("/as2/receive", {
		method: "POST",
		headers: message.headers,
		body: new Uint8Array(message.body),
	});
	const type = response.headers.get("content-type") ?? "";
	const body = Buffer.from(await response.arrayBuffer());
	const file = join(certs.dir, `mdn-${Date.now()}-${Math.random()}.eml`);
	writeFileSync(file, Buffer.concat([Buffer.from(`Content-Type: ${type}\r\n\r\n`), body]));
	const mdn = execFileSync(
		"openssl",
		["cms", "-verify", "-in", file, "-inform", "SMIME", "-certfile", ourCertPath, "-noverify"],
		{ stdio: ["ignore", "pipe", "pipe"] },
	).toString("latin1");
	return { status: response.status, mdn };
}

async function stored(id: string) {
	const record = await peer.server.store.messages.findByMessageId(peer.tenantId, `${id}@partner.example`, {
		direction: "inbound",
	});
	return record ? (await peer.call("GET", `/v1/messages/${record.id}`)).json.data : undefined;
}

describe("signatures over line-ending-damaged content, at /as2/receive", () => {
	for (const [signedForm, deliveredForm] of [
		["crlf", "lf"],
		["lf", "crlf"],
	] as const) {
		it(`signed in ${signedForm.toUpperCase()} form, delivered in ${deliveredForm.toUpperCase()}: received, signature_variant ${signedForm}, the MDN's MIC is over the signed bytes`, async () => {
			const id = `lineends-${signedForm}-${Date.now()}`;
			const message = damaged({ signedForm, deliveredForm }, id);
			const { status, mdn } = await post(message);
			expect(status).toBe(200);
			expect(mdn).toMatch(/Disposition: automatic-action\/MDN-sent-automatically; processed\r?\n/);
			expect(mdn).toContain(`Received-Content-MIC: ${micOf(message.signed)}`);
			const detail = await stored(id);
			expect(detail).toMatchObject({ status: "received", details: { signature_variant: signedForm } });
			expect(detail.mic).toBe(micOf(message.signed));
		});
	}

	it("an undamaged message records signature_variant as_received", async () => {
		const id = `lineends-clean-${Date.now()}`;
		const { status } = await post(damaged({ signedForm: "crlf", deliveredForm: "crlf" }, id));
		expect(status).toBe(200);
		expect((await stored(id)).details.signature_variant).toBe("as_received");
	});

	it("tampered and damaged: verifies under no form, refused with a negative MDN and nothing stored as received", async () => {
		const id = `lineends-tampered-${Date.now()}`;
		const { mdn } = await post(damaged({ signedForm: "crlf", deliveredForm: "lf", tamper: true }, id));
		expect(mdn).toMatch(
			/Disposition: automatic-action\/MDN-sent-automatically; processed\/error: integrity-check-failed/,
		);
		expect((await stored(id))?.status).not.toBe("received");
	});
});
