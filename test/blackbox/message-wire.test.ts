/**
 * Every message's attempts and its wire (issue #18, section 2) against the built server over
 * real sockets, on SQLite and PostgreSQL: the partner is an endpoint on 127.0.0.1 that is busy
 * once (a 503) and then answers an `openssl cms`-signed MDN. The attempts are read with fetch,
 * the captures downloaded with curl and read back by the `as2kit` CLI, as the README shows;
 * another tenant, unknown attempts and malformed paths get 4xx.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { as2kit } from "../../packages/as2-core/test/helpers/cli.ts";
import { scratch } from "../../packages/as2-core/test/helpers/openssl.ts";
import { makeCertificates } from "../../packages/server/test/helpers/certs.ts";
import {
	createPartnerWithCertificate,
	type PartnerRequest,
	processedAnswer,
	type QuirkyPartners,
	startQuirkyPartners,
} from "../../packages/server/test/helpers/quirky-partner.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, curl, liveTenant, rawRequest, register } from "./clients.ts";

const certs = makeCertificates();
const partnerKey = certs.selfSigned("bb-wire-partner");
const work = scratch("as2kit-blackbox-wire-");
const PAYLOAD = "ISA*00*WIRE~\r\nGS*PO*WIRE~\r\n";

let server: BuiltServer;
let partners: QuirkyPartners;
let liveKey: string;
let sessionToken: string;
let tenantAs2Id: string;
let tenantCertificate: string;
let messageId: string;

beforeAll(async () => {
	partners = await startQuirkyPartners();
	server = await startBuiltServer({
		env: {
			AS2_ALLOW_HTTP: "1",
			AS2_ALLOW_PRIVATE_TARGETS: "1",
			AS2_DEFAULT_PLAN: "professional",
			// The busy partner's second attempt follows at once.
			AS2_SEND_RETRY_DELAYS: "0,0",
			// Only written into the async MDN request: the test posts the MDN itself.
			AS2_PUBLIC_URL: "https://as2.example.test",
		},
	});
	const tenant = await liveTenant(server.base);
	({ liveKey, tenantAs2Id } = tenant);
	sessionToken = tenant.user.token;
	const certificates = await call(server.base, "GET", "/v1/certificates", { token: liveKey });
	tenantCertificate = work.file("tenant.pem", certificates.json.data[0].certificate_pem);

	let busy = true;
	partners.answer("BB-WIRE", (request: PartnerRequest) => {
		if (busy) {
			busy = false;
			return { status: 503, headers: { "content-type": "text/plain", "retry-after": "0" }, body: "busy, try later" };
		}
		return processedAnswer(certs.dir, request, partnerKey, tenantAs2Id);
	});
	const partnerId = await createPartnerWithCertificate(
		(path, body) => call(server.base, "POST", path, { token: liveKey, body }),
		{ name: "BB-WIRE", as2_id: "BB-WIRE", url: partners.url, sign: true, mdn_mode: "sync", mdn: { signed: true } },
		partnerKey.certPem,
	);
	const sent = await call(server.base, "POST", "/v1/messages", {
		token: liveKey,
		body: { partner_id: partnerId, content_type: "application/edi-x12", payload: { content: PAYLOAD } },
	});
	expect(sent.status, sent.text).toBe(202);
	messageId = sent.json.data.id;
	await until(messageId, (m) => m.status === "delivered" || m.status === "failed");
}, 120_000);

afterAll(async () => {
	await server?.stop();
	await partners?.close();
	work.cleanup();
	rmSync(certs.dir, { recursive: true, force: true });
});

/** Bounded polling (30 s) until the message detail passes `check`. */
// biome-ignore lint/suspicious/noExplicitAny: the message detail as JSON
async function until(id: string, check: (message: any) => boolean): Promise<any> {
	for (let i = 0; i < 300; i++) {
		const message = (await call(server.base, "GET", `/v1/messages/${id}`, { token: liveKey })).json.data;
		if (check(message)) return message;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	throw new Error(`message ${id} did not reach the awaited state`);
}

const attemptsOf = (id: string, token = liveKey) => call(server.base, "GET", `/v1/messages/${id}/attempts`, { token });

/** Downloads with curl into the scratch directory; answers the HTTP status and the response headers. */
async function download(path: string, name: string, token = liveKey) {
	const headersFile = work.file(`${name}.http-headers`);
	const run = await curl([
		"-sS",
		"-H",
		`Authorization: Bearer ${token}`,
		"-D",
		headersFile,
		"-o",
		work.file(name),
		"-w",
		"%{http_code}",
		`${server.base}${path}`,
	]);
	return { status: Number(run.stdout), headers: readFileSync(headersFile, "latin1") };
}

/**
 * Builds a message from BB-WIRE to the tenant with `as2kit build` (signed, plus `extra`
 * options), posts it to /as2/receive with curl, and answers its AS2 Message-ID; the request's
 * files are `<name>.headers` and `<name>.body` in the scratch directory.
 */
async function postInbound(name: string, content: string, extra: string[] = []): Promise<string> {
	const built = as2kit(
		"build",
		"--payload",
		work.file(`${name}.x12`, content),
		"--from",
		"BB-WIRE",
		"--to",
		tenantAs2Id,
		"--sign",
		"sha256",
		"--key",
		partnerKey.keyPath,
		"--cert",
		partnerKey.certPath,
		"--content-type",
		"application/edi-x12",
		...extra,
		"--out-headers",
		work.file(`${name}.headers`),
		"--out-body",
		work.file(`${name}.body`),
	);
	expect(built.code, built.stderr).toBe(0);
	const posted = await curl([
		"-sS",
		"-H",
		`@${work.file(`${name}.headers`)}`,
		"--data-binary",
		`@${work.file(`${name}.body`)}`,
		"-o",
		"/dev/null",
		"-w",
		"%{http_code}",
		`${server.base}/as2/receive`,
	]);
	expect(posted.stdout).toBe("200");
	return built.json.message_id;
}

describe("attempts and wire captures of a message", () => {
	it("lists both attempts with fetch: the 503 retried, then the 200 with its phases, bytes and captures", async () => {
		const response = await fetch(`${server.base}/v1/messages/${messageId}/attempts`, {
			headers: { authorization: `Bearer ${liveKey}` },
		});
		expect(response.status).toBe(200);
		const { data } = await response.json();
		expect(data).toHaveLength(2);
		const [busy, delivered] = data;
		expect(busy).toMatchObject({
			number: 1,
			direction: "outbound",
			url: partners.url,
			http_status: 503,
			outcome: "retrying",
			error_code: "PARTNER_UNREACHABLE",
			tls_version: null,
		});
		expect(delivered).toMatchObject({ number: 2, http_status: 200, outcome: "succeeded", error_code: null });
		for (const attempt of data) {
			expect(attempt.bytes_sent).toBeGreaterThan(PAYLOAD.length);
			expect(attempt.bytes_received).toBeGreaterThan(0);
			expect(Date.parse(attempt.finished_at)).toBeGreaterThanOrEqual(Date.parse(attempt.started_at));
			expect(Object.keys(attempt.phases)).toEqual(expect.arrayContaining(["build_ms", "send_ms", "wait_ms"]));
			const base = `/v1/messages/${messageId}/attempts/${attempt.number}`;
			expect(attempt.wire).toEqual({ request: `${base}/request`, response: `${base}/response`, mdn: null });
		}
		// The first attempt opened the connection; the second may reuse it (keep-alive).
		expect(busy.phases.connect_ms).toBeGreaterThanOrEqual(0);
	});

	it("the request download is the exact bytes the partner received, and `as2kit parse` reads it", async () => {
		const whole = await download(`/v1/messages/${messageId}/attempts/2/request`, "request.eml");
		expect(whole.status).toBe(200);
		expect(whole.headers).toMatch(/content-type: message\/http/i);
		expect(whole.headers).toMatch(/content-disposition: attachment; filename="msg_\d+-attempt-2-request\.eml"/i);
		const bytes = work.read("request.eml");
		const split = bytes.indexOf("\r\n\r\n");
		expect(bytes.subarray(0, split).toString("latin1")).toMatch(/^POST \/as2 HTTP\/1\.1\r\n/);
		const received = partners.requests("BB-WIRE")[1]!;
		expect(bytes.subarray(split + 4).equals(received.raw)).toBe(true);
		for (const [name, value] of Object.entries(received.headers)) {
			expect(bytes.subarray(0, split).toString("latin1").toLowerCase()).toContain(`${name}: ${value}`.toLowerCase());
		}

		expect(
			(await download(`/v1/messages/${messageId}/attempts/2/request?part=headers`, "request.headers")).status,
		).toBe(200);
		expect((await download(`/v1/messages/${messageId}/attempts/2/request?part=body`, "request.body")).status).toBe(200);
		const run = as2kit(
			"parse",
			"--headers",
			work.file("request.headers"),
			"--body",
			work.file("request.body"),
			"--partner-cert",
			tenantCertificate,
			"--require-signed",
			"--out-payload",
			work.file("payload.x12"),
		);
		expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
		expect(run.json).toMatchObject({ signed: true, to: "BB-WIRE" });
		expect(work.read("payload.x12").toString()).toBe(PAYLOAD);
	});

	it("the response download is the signed MDN, and `as2kit verify-mdn` accepts it with the partner's certificate", async () => {
		const message = (await call(server.base, "GET", `/v1/messages/${messageId}`, { token: liveKey })).json.data;
		expect((await download(`/v1/messages/${messageId}/attempts/2/response?part=headers`, "mdn.headers")).status).toBe(
			200,
		);
		const body = await download(`/v1/messages/${messageId}/attempts/2/response?part=body`, "mdn.body");
		expect(body.headers).toMatch(/content-type: application\/octet-stream/i);
		expect(work.read("mdn.headers").toString("latin1")).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
		const run = as2kit(
			"verify-mdn",
			"--headers",
			work.file("mdn.headers"),
			"--body",
			work.file("mdn.body"),
			"--partner-cert",
			partnerKey.certPath,
			"--expect-mic",
			message.mic,
			"--expect-message-id",
			message.message_id,
		);
		expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
		expect(run.json).toMatchObject({ accepted: true, signature_valid: true, mic_matches: true });
		// The busy answer of the first attempt, whole.
		const refused = await call(server.base, "GET", `/v1/messages/${messageId}/attempts/1/response`, {
			token: liveKey,
			headers: { accept: "*/*" },
		});
		expect(refused.status).toBe(200);
		expect(refused.text).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n[\s\S]*\r\n\r\nbusy, try later$/);
	});

	it("GET /v1/account/usage with curl: the month's live messages, and the storage kept as last measured", async () => {
		// The account's figures: a session (or an account key); a tenant key is refused (403).
		const run = await curl(["-sS", "-H", `Authorization: Bearer ${sessionToken}`, `${server.base}/v1/account/usage`]);
		const usage = JSON.parse(run.stdout).data;
		expect(usage.plan).toBe("professional");
		expect(usage.live_messages.used).toBeGreaterThanOrEqual(1);
		expect(usage.live_messages.limit).toBe(100_000);
		expect(usage.live_bytes).toBeGreaterThanOrEqual(PAYLOAD.length);
		const { payload_bytes, wire_bytes, total_bytes } = usage.storage;
		expect(total_bytes).toBe(payload_bytes + wire_bytes);
		const anonymous = await curl(["-sS", "-o", "/dev/null", "-w", "%{http_code}", `${server.base}/v1/account/usage`]);
		expect(anonymous.stdout).toBe("401");
		const tenantKey = await curl([
			"-sS",
			"-o",
			"/dev/null",
			"-w",
			"%{http_code}",
			"-H",
			`Authorization: Bearer ${liveKey}`,
			`${server.base}/v1/account/usage`,
		]);
		expect(tenantKey.stdout).toBe("403");
	});

	it("hostile: another tenant sees nothing, unknown or malformed attempts are 404, a bad part is 422", async () => {
		const stranger = await register(server.base);
		expect((await attemptsOf(messageId, stranger.token)).status).toBe(404);
		expect(
			(await download(`/v1/messages/${messageId}/attempts/2/request`, "stranger.eml", stranger.token)).status,
		).toBe(404);
		for (const path of [
			`${messageId}/attempts/3/request`,
			`${messageId}/attempts/0/request`,
			`${messageId}/attempts/-1/response`,
			`${messageId}/attempts/1e3/request`,
			`${messageId}/attempts/99999999999999999999/request`,
			`${messageId}/attempts/2/mdn`,
			"msg_999999/attempts/1/request",
			"msg_999999/attempts",
		]) {
			const answer = await call(server.base, "GET", `/v1/messages/${path}`, { token: liveKey });
			expect(answer.status, path).toBe(404);
			expect(answer.json.error.code, path).toBe("NOT_FOUND");
		}
		const badPart = await call(server.base, "GET", `/v1/messages/${messageId}/attempts/2/request?part=all%00`, {
			token: liveKey,
		});
		expect(badPart.status).toBe(422);
		// HEAD over a raw socket: the size without the bytes.
		const head = await rawRequest(
			server.port,
			[
				`HEAD /v1/messages/${messageId}/attempts/2/request HTTP/1.1`,
				`Host: 127.0.0.1:${server.port}`,
				`Authorization: Bearer ${liveKey}`,
				"Connection: close",
				"",
				"",
			].join("\r\n"),
		);
		expect(head.status, head.raw).toBe(200);
		expect(head.raw).toMatch(/content-length: \d+/i);
		// A client that hangs up as soon as it has asked for a download: the stream is dropped, nothing else.
		const aborted = await rawRequest(
			server.port,
			[
				`GET /v1/messages/${messageId}/attempts/2/request HTTP/1.1`,
				`Host: 127.0.0.1:${server.port}`,
				`Authorization: Bearer ${liveKey}`,
				"",
				"",
			].join("\r\n"),
			[],
			{ resetAfterWrite: true },
		);
		expect(aborted.ended).not.toBe("timeout");
		expect((await attemptsOf(messageId)).status).toBe(200);
	});

	it("an async MDN posted with curl is captured with the attempt it answers, and verify-mdn reads it", async () => {
		partners.answer("BB-WIRE-ASYNC", () => ({ status: 200, body: "" }));
		const partnerId = await createPartnerWithCertificate(
			(path, body) => call(server.base, "POST", path, { token: liveKey, body }),
			{
				name: "BB-WIRE-ASYNC",
				as2_id: "BB-WIRE-ASYNC",
				url: partners.url,
				sign: true,
				mdn_mode: "async",
				mdn: { signed: true },
			},
			partnerKey.certPem,
		);
		const sent = await call(server.base, "POST", "/v1/messages", {
			token: liveKey,
			body: { partner_id: partnerId, content_type: "application/edi-x12", payload: { content: PAYLOAD } },
		});
		expect(sent.status, sent.text).toBe(202);
		const id = sent.json.data.id;
		const waiting = await until(id, (m) => m.status === "sent");
		const mdn = processedAnswer(certs.dir, partners.lastRequest("BB-WIRE-ASYNC")!, partnerKey, tenantAs2Id);
		writeFileSync(work.file("async.body"), mdn.body);
		const posted = await curl([
			"-sS",
			...Object.entries(mdn.headers ?? {}).flatMap(([name, value]) => ["-H", `${name}: ${value}`]),
			"--data-binary",
			`@${work.file("async.body")}`,
			"-o",
			"/dev/null",
			"-w",
			"%{http_code}",
			`${server.base}/as2/receive`,
		]);
		expect(posted.stdout).toBe("200");
		await until(id, (m) => m.status === "delivered");
		const [attempt] = (await attemptsOf(id)).json.data;
		expect(attempt).toMatchObject({ number: 1, outcome: "succeeded", http_status: 200 });
		expect(attempt.wire.mdn).toBe(`/v1/messages/${id}/attempts/1/mdn`);
		expect((await download(`${attempt.wire.mdn}?part=headers`, "async-mdn.headers")).status).toBe(200);
		expect((await download(`${attempt.wire.mdn}?part=body`, "async-mdn.body")).status).toBe(200);
		expect(work.read("async-mdn.body").equals(Buffer.from(mdn.body))).toBe(true);
		const run = as2kit(
			"verify-mdn",
			"--headers",
			work.file("async-mdn.headers"),
			"--body",
			work.file("async-mdn.body"),
			"--partner-cert",
			partnerKey.certPath,
			"--expect-mic",
			waiting.mic,
		);
		expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
	});

	it("an inbound message's receipt is its attempt: the request as received, which `as2kit parse` reads", async () => {
		const messageId = await postInbound("inbound", "ISA*00*INBOUND~\r\n");
		// Without an MDN requested, the message is processed by a job after the answer: wait for it (30 s).
		let id: string | undefined;
		for (let i = 0; i < 300 && !id; i++) {
			const list = await call(server.base, "GET", "/v1/messages?direction=inbound", { token: liveKey });
			id = list.json.data.find((m: { message_id: string }) => m.message_id === messageId)?.id;
			if (!id) await new Promise((resolve) => setTimeout(resolve, 100));
		}
		if (!id) throw new Error("the inbound message was not stored within 30 s");
		const [receipt] = (await attemptsOf(id)).json.data;
		expect(receipt).toMatchObject({ number: 1, direction: "inbound", outcome: "succeeded", url: null });
		expect((await download(`${receipt.wire.request}?part=headers`, "received.headers")).status).toBe(200);
		expect((await download(`${receipt.wire.request}?part=body`, "received.body")).status).toBe(200);
		expect(work.read("received.body").equals(work.read("inbound.body"))).toBe(true);
		const run = as2kit(
			"parse",
			"--headers",
			work.file("received.headers"),
			"--body",
			work.file("received.body"),
			"--partner-cert",
			partnerKey.certPath,
			"--require-signed",
			"--out-payload",
			work.file("received.x12"),
		);
		expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
		expect(work.read("received.x12").toString()).toBe("ISA*00*INBOUND~\r\n");
	});
	it("the async MDN we send for an inbound message is captured with its receipt, and verify-mdn reads it", async () => {
		// Runs last: BB-WIRE now answers the MDN POST with a bare 200.
		partners.answer("BB-WIRE", () => ({ status: 200, body: "" }));
		const messageId = await postInbound("inbound-async", "ISA*00*ASYNC-MDN~\r\n", [
			"--mdn",
			"async",
			"--mdn-url",
			partners.url,
			"--signed-mdn",
			"sha256",
		]);
		// The MDN goes out from a job: wait (30 s) until the partner got it and the receipt holds it.
		let receipt: { wire: { mdn: string | null } } | undefined;
		let id: string | undefined;
		for (let i = 0; i < 300 && !receipt?.wire.mdn; i++) {
			const list = await call(server.base, "GET", "/v1/messages?direction=inbound", { token: liveKey });
			id = list.json.data.find((m: { message_id: string }) => m.message_id === messageId)?.id;
			if (id) [receipt] = (await attemptsOf(id)).json.data;
			if (!receipt?.wire.mdn) await new Promise((resolve) => setTimeout(resolve, 100));
		}
		if (!id || !receipt?.wire.mdn) throw new Error("the async MDN sent was not captured within 30 s");
		expect(receipt.wire.mdn).toBe(`/v1/messages/${id}/attempts/1/mdn`);
		const headers = await download(`${receipt.wire.mdn}?part=headers`, "sent-mdn.headers");
		expect(headers.status).toBe(200);
		expect(work.read("sent-mdn.headers").toString("latin1")).toMatch(/^POST \/as2 HTTP\/1\.1\r\n/);
		expect((await download(`${receipt.wire.mdn}?part=body`, "sent-mdn.body")).status).toBe(200);
		// Byte for byte what the partner received.
		expect(work.read("sent-mdn.body").equals(partners.lastRequest("BB-WIRE")!.raw)).toBe(true);
		const inbound = (await call(server.base, "GET", `/v1/messages/${id}`, { token: liveKey })).json.data;
		const run = as2kit(
			"verify-mdn",
			"--headers",
			work.file("sent-mdn.headers"),
			"--body",
			work.file("sent-mdn.body"),
			"--partner-cert",
			tenantCertificate,
			"--expect-mic",
			inbound.mic,
		);
		expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
	});
});
