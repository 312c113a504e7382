/**
 * A partner's resent Message-ID, against the built server over real sockets (issue #20): the
 * server no longer reads for a duplicate before processing a message; the insert of the
 * message finds it (the store's unique Message-ID, SQLite and PostgreSQL alike). Whatever the
 * path, a duplicate is stored once, with one `message.received`, and answered as the original
 * was: `processed`, with the original's MIC (decisions.md), whether it is the same bytes again
 * (fetch, a raw socket), a body that no longer processes (curl), or two copies at once.
 */
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { makeCertificates } from "../../packages/server/test/helpers/certs.ts";
import {
	EDIFACT_INTERCHANGE,
	mendelsonRawEncrypted,
	type WireMessage,
} from "../../packages/server/test/helpers/partner-bytes.ts";
import { asyncMdnPartners, startPartnerWorld } from "./async-mdn-partners.ts";
import type { BuiltServer } from "./built-server.ts";
import { call, rawRequest } from "./clients.ts";

const certs = makeCertificates();
const partnerKey = certs.selfSigned("bb-duplicates-partner");
const PARTNER = "BB-DUPLICATES";

let world: Awaited<ReturnType<typeof startPartnerWorld>>;
let server: BuiltServer;
let liveKey: string;
let tenantAs2Id: string;
let ourCertPath: string;

beforeAll(async () => {
	world = await startPartnerWorld({ name: "bb-duplicates", certDir: certs.dir });
	({ server, liveKey, tenantAs2Id, ourCertPath } = world);
	await asyncMdnPartners({
		base: () => server.base,
		token: () => liveKey,
		endpointPort: () => world.endpointPort,
		certificatePem: partnerKey.certPem,
	}).create(PARTNER, { sign: false, encrypt: true, mdn_mode: "sync", mdn: { signed: false } });
});
afterAll(async () => {
	await world?.stop();
	rmSync(certs.dir, { recursive: true, force: true });
});

/** A message of the partner, encrypted to us, asking for an unsigned sync MDN. */
function message(messageId: string): WireMessage {
	const wire = mendelsonRawEncrypted(certs.dir, EDIFACT_INTERCHANGE, ourCertPath, {
		from: PARTNER,
		to: tenantAs2Id,
		messageId,
	});
	wire.headers["Disposition-Notification-To"] = "as2@partner.example";
	return wire;
}

async function postWithFetch(wire: WireMessage): Promise<string> {
	const response = await fetch(`${server.base}/as2/receive`, {
		method: "POST",
		headers: wire.headers,
		body: new Uint8Array(wire.body),
		signal: AbortSignal.timeout(30_000),
	});
	expect(response.status).toBe(200);
	return response.text();
}

async function postOverSocket(wire: WireMessage): Promise<string> {
	const lines = Object.entries(wire.headers).map(([name, value]) => `${name}: ${value}\r\n`);
	const head = `POST /as2/receive HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: ${wire.body.byteLength}\r\n${lines.join("")}\r\n`;
	const answer = await rawRequest(server.port, head, [wire.body]);
	expect(answer.status, answer.raw).toBe(200);
	return answer.raw;
}

function postWithCurl(wire: WireMessage): string {
	const bodyPath = join(certs.dir, "duplicate.body");
	writeFileSync(bodyPath, wire.body);
	const headers = Object.entries(wire.headers).flatMap(([n, v]) => ["-H", `${n}: ${v}`]);
	return execFileSync(
		"curl",
		["-sS", "--max-time", "30", "-o", "-", ...headers, "--data-binary", `@${bodyPath}`, `${server.base}/as2/receive`],
		{ stdio: ["ignore", "pipe", "pipe"] },
	).toString("latin1");
}

/** The disposition and MIC of an unsigned MDN, as its text states them. */
function receipt(mdn: string) {
	return {
		disposition: /^Disposition: (.*?)\r?$/m.exec(mdn)?.[1],
		mic: /^Received-Content-MIC: (.*?)\r?$/m.exec(mdn)?.[1],
	};
}

/** The inbound messages stored with this Message-ID, and the `message.received` events of them. */
async function stored(messageId: string) {
	const as = { token: liveKey };
	const inbound = await call(server.base, "GET", "/v1/messages?direction=inbound&per_page=100", as);
	const ids: string[] = inbound.json.data
		.filter((m: { message_id: string }) => m.message_id === messageId)
		.map((m: { id: string }) => m.id);
	const timelines = await Promise.all(ids.map((id) => call(server.base, "GET", `/v1/messages/${id}/timeline`, as)));
	const events = timelines.flatMap((timeline) => timeline.json.data.map((entry: { event: string }) => entry.event));
	return { messages: ids.length, events };
}

it("a resent message, the same bytes or a body that no longer processes, is stored once and answered as the original", async () => {
	const messageId = "bb-duplicate-1@partner";
	const wire = message(messageId);
	const first = receipt(await postWithFetch(wire));
	expect(first).toEqual({ disposition: "automatic-action/MDN-sent-automatically; processed", mic: expect.any(String) });
	expect(receipt(await postOverSocket(wire))).toEqual(first);
	// The same Message-ID with a body nobody can decrypt: a mangled resend, or a forgery.
	expect(receipt(postWithCurl({ ...wire, body: Buffer.from("not a CMS structure") }))).toEqual(first);
	expect(await stored(messageId)).toEqual({ messages: 1, events: ["message.received"] });
	server.assertAlive();
});

it("two copies of one message at once: both answered processed with one MIC, one stored", async () => {
	const messageId = "bb-duplicate-2@partner";
	const wire = message(messageId);
	const answers = (await Promise.all([postWithFetch(wire), postWithFetch(wire)])).map(receipt);
	expect(answers[0]?.disposition).toBe("automatic-action/MDN-sent-automatically; processed");
	expect(answers[1]).toEqual(answers[0]);
	expect(await stored(messageId)).toEqual({ messages: 1, events: ["message.received"] });
	server.assertAlive();
});
