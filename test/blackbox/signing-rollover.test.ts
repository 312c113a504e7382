/**
 * Issue #20 against the built server over real sockets: the SignedData around a signature is
 * built once per signing identity (packages/as2-core/src/cms/signed-data-template.ts), yet a
 * rollover of our own signing identity through the API signs the very next message with the
 * new certificate, and switching back signs with the old one again. The partner's AS2 endpoint
 * on 127.0.0.1 keeps what we POST; `openssl cms -verify` tells which certificate signed each
 * message: the signature checked with one certificate only. Changes come from fetch and curl, messages from fetch and
 * a raw node:net socket.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { makeCertificates } from "../../packages/server/test/helpers/certs.ts";
import type { BuiltServer } from "./built-server.ts";
import { call, curl, rawRequest } from "./clients.ts";
import { verifySigned } from "./openssl-smime.ts";
import { type ReceivedRequest, type RecordingPartnerWorld, startRecordingPartnerWorld } from "./recording-partner.ts";

const certs = makeCertificates();
const next = certs.pkcs12("bb-signing-rollover-pw");
const PAYLOAD = "ISA*00*          *00*          *ZZ*OURS*ZZ*SIGNED~\r\n";

let world: RecordingPartnerWorld;
let server: BuiltServer;
let liveKey: string;
let partnerId: string;

beforeAll(async () => {
	world = await startRecordingPartnerWorld({ name: "Verifying", as2_id: "BB-VERIFYING", sign: true, encrypt: false });
	({ server, liveKey, partnerId } = world);
});
afterAll(async () => {
	await world?.stop();
	rmSync(certs.dir, { recursive: true, force: true });
});

const submission = () =>
	JSON.stringify({ partner_id: partnerId, content_type: "application/edi-x12", payload: { content: PAYLOAD } });

/**
 * Whether a captured multipart/signed verifies with `certificatePem` as the only certificate
 * the signer may come from (openssl-smime.ts: `cms -verify -binary -content -nointern`).
 */
async function signedBy(message: ReceivedRequest, certificatePem: string): Promise<boolean> {
	const certificatePath = join(
		certs.dir,
		`signer-${world.received.indexOf(message)}-${certificatePem.length}-${Date.now()}.pem`,
	);
	writeFileSync(certificatePath, certificatePem);
	const entity = Buffer.concat([Buffer.from(`Content-Type: ${message.contentType}\r\n\r\n`), message.body]);
	try {
		await verifySigned(certs.dir, entity, certificatePath);
		return true;
	} catch {
		return false;
	}
}

async function send(before: number, how: "fetch" | "raw") {
	if (how === "fetch") {
		const sent = await fetch(`${server.base}/v1/messages`, {
			method: "POST",
			headers: { authorization: `Bearer ${liveKey}`, "content-type": "application/json" },
			body: submission(),
		});
		expect(sent.status, await sent.text()).toBe(202);
	} else {
		const body = submission();
		const raw = await rawRequest(
			server.port,
			`POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${liveKey}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`,
			[body],
		);
		expect(raw.status, raw.raw).toBe(202);
	}
	return world.nextReceived(before);
}

it("a rollover of our signing identity signs the very next message with the new certificate, and back", async () => {
	const generated = await call(server.base, "GET", "/v1/certificates?type=identity", { token: liveKey });
	expect(generated.json.data, generated.text).toHaveLength(1);
	const old = { id: generated.json.data[0].id as string, pem: generated.json.data[0].certificate_pem as string };

	// Signed by the generated identity, twice: the second from the identity's cached template.
	for (const how of ["fetch", "raw"] as const) {
		const message = await send(world.received.length, how);
		expect(await signedBy(message, old.pem)).toBe(true);
		expect(await signedBy(message, next.certPem)).toBe(false);
	}

	// The rollover, with curl: a new identity (PKCS#12) uploaded, then the old one deactivated.
	const uploaded = await curl([
		"-w",
		"\n%{http_code}",
		"-X",
		"POST",
		"-H",
		`authorization: Bearer ${liveKey}`,
		"-H",
		"content-type: application/json",
		"--data",
		JSON.stringify({
			name: "next identity",
			type: "identity",
			usage: "both",
			pkcs12: next.p12.toString("base64"),
			password: "bb-signing-rollover-pw",
		}),
		`${server.base}/v1/certificates`,
	]);
	expect(uploaded.stdout.endsWith("\n201"), uploaded.stdout).toBe(true);
	const off = await call(server.base, "POST", `/v1/certificates/${old.id}/deactivate`, { token: liveKey });
	expect(off.status, off.text).toBe(200);

	for (const how of ["raw", "fetch"] as const) {
		const message = await send(world.received.length, how);
		expect(await signedBy(message, next.certPem)).toBe(true);
		expect(await signedBy(message, old.pem)).toBe(false);
	}

	// Back: the new one deactivated, the old one active again; its template is still right.
	const newId = JSON.parse(uploaded.stdout.slice(0, uploaded.stdout.lastIndexOf("\n"))).data.id as string;
	expect((await call(server.base, "POST", `/v1/certificates/${old.id}/activate`, { token: liveKey })).status).toBe(200);
	expect((await call(server.base, "POST", `/v1/certificates/${newId}/deactivate`, { token: liveKey })).status).toBe(
		200,
	);
	const back = await send(world.received.length, "fetch");
	expect(await signedBy(back, old.pem)).toBe(true);
	server.assertAlive();
});
