/**
 * Issue #20, wire capture per message: an attempt's request and the partner's answer are kept
 * in one blob (each side a part of it; a record of a segment file since stop 33), against the built server over real sockets on SQLite
 * and PostgreSQL. Each side's download is its exact bytes — with fetch, curl, and a raw socket
 * for HEAD — and a client that hangs up in the middle of a part leaves the server serving.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratch } from "../../packages/as2-core/test/helpers/openssl.ts";
import { HEADER_BYTES } from "../../packages/server/src/blobs/segment-record.ts";
import { makeCertificates } from "../../packages/server/test/helpers/certs.ts";
import {
	createPartnerWithCertificate,
	type PartnerAnswer,
	processedAnswer,
	type QuirkyPartners,
	startQuirkyPartners,
} from "../../packages/server/test/helpers/quirky-partner.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, curl, healthLatency, liveTenant, rawRequest } from "./clients.ts";

const certs = makeCertificates();
const partnerKey = certs.selfSigned("bb-one-file-partner");
const work = scratch("as2kit-blackbox-one-file-");
const PAYLOAD = `ISA*00*ONE-FILE~\r\n${"LIN*1*BP*0123456789~\r\n".repeat(200)}`;

let server: BuiltServer;
let partners: QuirkyPartners;
let liveKey: string;
let messageId: string;
let answered: PartnerAnswer;

beforeAll(async () => {
	partners = await startQuirkyPartners();
	server = await startBuiltServer({ env: { AS2_ALLOW_HTTP: "1", AS2_ALLOW_PRIVATE_TARGETS: "1" } });
	const tenant = await liveTenant(server.base);
	liveKey = tenant.liveKey;
	partners.answer("BB-ONE-FILE", (request) => {
		answered = processedAnswer(certs.dir, request, partnerKey, tenant.tenantAs2Id);
		return answered;
	});
	const partnerId = await createPartnerWithCertificate(
		(path, body) => call(server.base, "POST", path, { token: liveKey, body }),
		{ name: "BB-ONE-FILE", as2_id: "BB-ONE-FILE", url: partners.url, sign: true, mdn_mode: "sync" },
		partnerKey.certPem,
	);
	const sent = await call(server.base, "POST", "/v1/messages", {
		token: liveKey,
		body: { partner_id: partnerId, content_type: "application/edi-x12", payload: { content: PAYLOAD } },
	});
	expect(sent.status, sent.text).toBe(202);
	messageId = sent.json.data.id;
	for (let i = 0; i < 300; i++) {
		const message = (await call(server.base, "GET", `/v1/messages/${messageId}`, { token: liveKey })).json.data;
		if (message.status === "delivered" || message.status === "failed") break;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}, 120_000);

afterAll(async () => {
	await server?.stop();
	await partners?.close();
	work.cleanup();
});

const wirePath = (side: string) => `/v1/messages/${messageId}/attempts/1/${side}`;
const bearer = () => ({ authorization: `Bearer ${liveKey}` });

/**
 * The blobs of the server's segment files (fs blob store, stop 33): each record's bytes, found
 * by walking the records (a 32-byte header whose bytes 24–30 are the length: segment-record.ts).
 */
function segmentBlobs(): Buffer[] {
	const root = join(server.dir, "blobs", "segments");
	const blobs: Buffer[] = [];
	for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
		if (!entry.isFile() || !entry.name.endsWith(".seg")) continue;
		const segment = readFileSync(join(entry.parentPath, entry.name));
		for (let offset = 0; offset + HEADER_BYTES <= segment.byteLength; ) {
			const length = segment.readUIntLE(offset + 24, 6);
			blobs.push(segment.subarray(offset + HEADER_BYTES, offset + HEADER_BYTES + length));
			offset += HEADER_BYTES + length;
		}
	}
	return blobs;
}

describe("one blob per exchange, each side served as it was on the wire", () => {
	it("the attempt's request and answer are one blob, of both sides' bytes", async () => {
		const [attempt] = (await call(server.base, "GET", `/v1/messages/${messageId}/attempts`, { token: liveKey })).json
			.data;
		expect(attempt).toMatchObject({ number: 1, http_status: 200, outcome: "succeeded" });
		expect(attempt.wire).toMatchObject({ request: wirePath("request"), response: wirePath("response") });
		const received = partners.requests("BB-ONE-FILE")[0]!.raw;
		const answer = Buffer.from(answered.body);
		const captures = segmentBlobs().filter((blob) => blob.includes(received.subarray(0, 200)));
		expect(captures).toHaveLength(1);
		expect(captures[0]!.equals(Buffer.concat([received, answer]))).toBe(true);
	});

	it("fetch: the request's body is what the partner received, the response's is the answer it sent", async () => {
		const request = await fetch(`${server.base}${wirePath("request")}?part=body`, { headers: bearer() });
		expect(request.status).toBe(200);
		expect(Buffer.from(await request.arrayBuffer()).equals(partners.requests("BB-ONE-FILE")[0]!.raw)).toBe(true);
		const response = await fetch(`${server.base}${wirePath("response")}?part=body`, { headers: bearer() });
		expect(response.status).toBe(200);
		expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(answered.body))).toBe(true);
	});

	it("curl: the whole response is its head, then the answer's bytes, and no byte of the request", async () => {
		const run = await curl([
			"-sS",
			"-H",
			`Authorization: Bearer ${liveKey}`,
			"-o",
			work.file("response.eml"),
			"-w",
			"%{http_code} %{size_download}",
			`${server.base}${wirePath("response")}`,
		]);
		const bytes = work.read("response.eml");
		expect(run.stdout).toBe(`200 ${bytes.byteLength}`);
		const split = bytes.indexOf("\r\n\r\n");
		expect(bytes.subarray(0, split).toString("latin1")).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
		expect(bytes.subarray(split + 4).equals(Buffer.from(answered.body))).toBe(true);
	});

	it("raw socket: HEAD declares the part's size; a client gone in the middle of a part leaves the server serving", async () => {
		const body = await fetch(`${server.base}${wirePath("response")}?part=body`, { method: "HEAD", headers: bearer() });
		expect(Number(body.headers.get("content-length"))).toBe(Buffer.byteLength(answered.body));
		const head = await rawRequest(
			server.port,
			[
				`HEAD ${wirePath("request")}?part=body HTTP/1.1`,
				`Host: 127.0.0.1:${server.port}`,
				`Authorization: Bearer ${liveKey}`,
				"Connection: close",
				"",
				"",
			].join("\r\n"),
		);
		expect(head.status, head.raw).toBe(200);
		expect(head.raw).toMatch(
			new RegExp(`content-length: ${partners.requests("BB-ONE-FILE")[0]!.raw.byteLength}\\r\\n`, "i"),
		);
		const gone = await rawRequest(
			server.port,
			[
				`GET ${wirePath("response")} HTTP/1.1`,
				`Host: 127.0.0.1:${server.port}`,
				`Authorization: Bearer ${liveKey}`,
				"",
				"",
			].join("\r\n"),
			[],
			{ resetAfterWrite: true },
		);
		expect(gone.ended).not.toBe("timeout");
		expect(await healthLatency(server.base)).toBeLessThan(5_000);
		const again = await fetch(`${server.base}${wirePath("response")}?part=body`, { headers: bearer() });
		expect(Buffer.from(await again.arrayBuffer()).equals(Buffer.from(answered.body))).toBe(true);
	});
});
