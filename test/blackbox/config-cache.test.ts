/**
 * Issue #20 against the built server over real sockets: the configuration each message reads is
 * remembered for a second (packages/server/src/service/config-cache/), yet a certificate
 * rollover made through the API is honoured by the very next message. The partner's AS2
 * endpoint on 127.0.0.1 keeps what we POST; `openssl cms -decrypt` tells which of its keys
 * each message was encrypted to. Changes come from fetch and curl, the messages from fetch and
 * a raw node:net socket; a malformed upload (refused 422) changes nothing.
 */
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { makeCertificates } from "../../packages/server/test/helpers/certs.ts";
import type { BuiltServer } from "./built-server.ts";
import { call, curl, rawRequest } from "./clients.ts";
import { type ReceivedRequest, type RecordingPartnerWorld, startRecordingPartnerWorld } from "./recording-partner.ts";

const certs = makeCertificates();
const oldKey = certs.selfSigned("bb-cache-partner-old");
const newKey = certs.selfSigned("bb-cache-partner-new");
const PAYLOAD = "ISA*00*          *00*          *ZZ*OURS*ZZ*ROLL~\r\n";

let world: RecordingPartnerWorld;
let server: BuiltServer;
let liveKey: string;
let partnerId: string;

beforeAll(async () => {
	world = await startRecordingPartnerWorld({ name: "Rolling", as2_id: "BB-ROLLING", sign: false, encrypt: true });
	({ server, liveKey, partnerId } = world);
});
afterAll(async () => {
	await world?.stop();
	rmSync(certs.dir, { recursive: true, force: true });
});

const submission = () => ({
	partner_id: partnerId,
	content_type: "application/edi-x12",
	payload: { content: PAYLOAD },
});

/** Which of the partner's keys opens `body`: the certificate the message was encrypted to. */
function openedBy(message: ReceivedRequest): "old" | "new" | "neither" {
	const file = join(certs.dir, `received-${world.received.indexOf(message)}.der`);
	writeFileSync(file, message.body);
	for (const [name, key] of [
		["old", oldKey],
		["new", newKey],
	] as const) {
		try {
			execFileSync("openssl", ["cms", "-decrypt", "-inform", "DER", "-in", file, "-inkey", key.keyPath], {
				stdio: ["ignore", "pipe", "pipe"],
			});
			return name;
		} catch {}
	}
	return "neither";
}

it("a certificate rollover through the API is honoured by the very next message", async () => {
	const uploadOld = await call(server.base, "POST", `/v1/partners/${partnerId}/certificates`, {
		token: liveKey,
		body: { name: "old", usage: "encryption", certificate: oldKey.certPem },
	});
	expect(uploadOld.status, uploadOld.text).toBe(201);

	// Sent with fetch: encrypted to the old certificate, now remembered.
	let before = world.received.length;
	const first = await call(server.base, "POST", "/v1/messages", { token: liveKey, body: submission() });
	expect(first.status, first.text).toBe(202);
	expect(openedBy(await world.nextReceived(before))).toBe("old");

	// A malformed upload with curl: refused, nothing changes.
	const malformed = await curl([
		"-o",
		"/dev/null",
		"-w",
		"%{http_code}",
		"-X",
		"POST",
		"-H",
		`authorization: Bearer ${liveKey}`,
		"-H",
		"content-type: application/json",
		"--data",
		JSON.stringify({ name: "junk", usage: "encryption", certificate: "-----BEGIN CERTIFICATE-----\nnot one\n" }),
		`${server.base}/v1/partners/${partnerId}/certificates`,
	]);
	expect(malformed.stdout).toBe("422");
	before = world.received.length;
	expect((await call(server.base, "POST", "/v1/messages", { token: liveKey, body: submission() })).status).toBe(202);
	expect(openedBy(await world.nextReceived(before))).toBe("old");

	// The rollover, with curl: the new certificate uploaded, then the old one deactivated.
	const uploadNew = await curl([
		"-w",
		"\n%{http_code}",
		"-X",
		"POST",
		"-H",
		`authorization: Bearer ${liveKey}`,
		"-H",
		"content-type: application/json",
		"--data",
		JSON.stringify({ name: "new", usage: "encryption", certificate: newKey.certPem }),
		`${server.base}/v1/partners/${partnerId}/certificates`,
	]);
	expect(uploadNew.stdout.endsWith("\n201"), uploadNew.stdout).toBe(true);
	const deactivated = await call(server.base, "POST", `/v1/certificates/${uploadOld.json.data.id}/deactivate`, {
		token: liveKey,
	});
	expect(deactivated.status, deactivated.text).toBe(200);

	// At once, over a raw socket: the next message goes to the new certificate only.
	before = world.received.length;
	const body = JSON.stringify(submission());
	const raw = await rawRequest(
		server.port,
		`POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${liveKey}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`,
		[body],
	);
	expect(raw.status, raw.raw).toBe(202);
	expect(openedBy(await world.nextReceived(before))).toBe("new");
	server.assertAlive();
});
