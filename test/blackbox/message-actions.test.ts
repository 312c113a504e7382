/**
 * Retry, cancel and resend (issue #18, Act on a message) against the built server over real
 * sockets, on SQLite and PostgreSQL. The partner is an endpoint on 127.0.0.1 that refuses, is
 * busy (a 503: the next attempt is an hour away), or answers an `openssl cms`-signed MDN. Retry
 * with curl, cancel with fetch, resend over a raw socket; and the refusals a client that guesses
 * or races gets.
 */
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCertificates } from "../../packages/server/test/helpers/certs.ts";
import {
	createPartnerWithCertificate,
	type PartnerAnswer,
	type PartnerRequest,
	processedAnswer,
	type QuirkyPartners,
	startQuirkyPartners,
} from "../../packages/server/test/helpers/quirky-partner.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, createKey, curl, liveTenant, rawRequest, register } from "./clients.ts";

const certs = makeCertificates();
const partnerKey = certs.selfSigned("bb-actions-partner");

let server: BuiltServer;
let partners: QuirkyPartners;
let liveKey: string;
let tenantAs2Id: string;

beforeAll(async () => {
	partners = await startQuirkyPartners();
	server = await startBuiltServer({
		env: {
			AS2_ALLOW_HTTP: "1",
			AS2_ALLOW_PRIVATE_TARGETS: "1",
			AS2_DEFAULT_PLAN: "professional",
			// A busy partner's next attempt is an hour away: long enough to act on the message.
			AS2_SEND_RETRY_DELAYS: "3600,3600",
		},
	});
	({ liveKey, tenantAs2Id } = await liveTenant(server.base));
});
afterAll(async () => {
	await server?.stop();
	await partners?.close();
	rmSync(certs.dir, { recursive: true, force: true });
});

const processed = (request: PartnerRequest) => processedAnswer(certs.dir, request, partnerKey, tenantAs2Id);

async function partner(as2Id: string, answer: (request: PartnerRequest) => PartnerAnswer) {
	partners.answer(as2Id, answer);
	return createPartnerWithCertificate(
		(path, body) => call(server.base, "POST", path, { token: liveKey, body }),
		{ name: as2Id, as2_id: as2Id, url: partners.url, sign: true, mdn_mode: "sync", mdn: { signed: true } },
		partnerKey.certPem,
	);
}

async function submit(partnerId: string): Promise<string> {
	const sent = await call(server.base, "POST", "/v1/messages", {
		token: liveKey,
		body: { partner_id: partnerId, content_type: "application/edi-x12", payload: { content: "ISA*00*ACT~\r\n" } },
	});
	expect(sent.status, sent.text).toBe(202);
	return sent.json.data.id;
}

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

const curlPost = async (path: string, token = liveKey) => {
	const result = await curl([
		"-X",
		"POST",
		"-H",
		`Authorization: Bearer ${token}`,
		"-w",
		"\n%{http_code}",
		`${server.base}${path}`,
	]);
	const lines = result.stdout.split("\n");
	return { status: Number(lines.at(-1)), json: JSON.parse(lines.slice(0, -1).join("\n")) };
};

describe("acting on messages with the clients people use", () => {
	it("retry with curl: a refused message goes out again with the same Message-ID and is delivered", async () => {
		let refuse = true;
		const id = await partner("BB-RETRY", (request) => (refuse ? { status: 400, body: "no" } : processed(request)));
		const message = await submit(id);
		await until(message, (m) => m.status === "failed");
		refuse = false;
		const retried = await curlPost(`/v1/messages/${message}/retry`);
		expect(retried.status, JSON.stringify(retried.json)).toBe(200);
		const delivered = await until(message, (m) => m.status === "delivered");
		expect(delivered).toMatchObject({ attempts: 2, error_code: null });
		const ids = partners.requests("BB-RETRY").map((r) => r.headers["message-id"]);
		expect(ids).toEqual([`<${delivered.message_id}>`, `<${delivered.message_id}>`]);
		const timeline = await curl([
			"-H",
			`Authorization: Bearer ${liveKey}`,
			`${server.base}/v1/messages/${message}/timeline`,
		]);
		expect(
			JSON.parse(timeline.stdout).data.map((e: { event: string; attempt: number | null }) => [e.event, e.attempt]),
		).toEqual([
			["message.queued", null],
			["message.failed", 1],
			["message.queued", null],
			["message.sent", 2],
			["message.delivered", 2],
		]);
	});

	it("cancel with fetch: a message waiting an hour for its next attempt ends CANCELLED, never sent again", async () => {
		const id = await partner("BB-CANCEL", () => ({ status: 503, body: "busy" }));
		const message = await submit(id);
		const waiting = await until(message, (m) => m.next_attempt_at !== null);
		expect(waiting.status).toBe("processing");
		const response = await fetch(`${server.base}/v1/messages/${message}/cancel`, {
			method: "POST",
			headers: { authorization: `Bearer ${liveKey}` },
		});
		expect(response.status).toBe(200);
		expect((await response.json()).data).toMatchObject({ status: "failed", error_code: "CANCELLED" });
		expect((await curlPost(`/v1/messages/${message}/cancel`)).status).toBe(409);
		expect(partners.requests("BB-CANCEL")).toHaveLength(1);
	});

	it("resend over a raw socket: a new message, linked both ways, delivered with a new Message-ID", async () => {
		const id = await partner("BB-RESEND", processed);
		const original = await submit(id);
		const first = await until(original, (m) => m.status === "delivered");
		const answer = await rawRequest(
			server.port,
			[
				`POST /v1/messages/${original}/resend HTTP/1.1`,
				`Host: 127.0.0.1:${server.port}`,
				`Authorization: Bearer ${liveKey}`,
				`Idempotency-Key: ${randomUUID()}`,
				"Content-Length: 0",
				"Connection: close",
				"",
				"",
			].join("\r\n"),
		);
		expect(answer.status, answer.raw).toBe(202);
		const copy = JSON.parse(answer.raw.slice(answer.raw.indexOf("\r\n\r\n") + 4)).data;
		expect(copy).toMatchObject({ resent_from: original });
		const delivered = await until(copy.id, (m) => m.status === "delivered");
		expect(delivered.message_id).not.toBe(first.message_id);
		expect(
			(await call(server.base, "GET", `/v1/messages/${original}`, { token: liveKey })).json.data.resent_as,
		).toEqual([copy.id]);
	});

	it("hostile: unknown and malformed ids are 404, a session of another account sees nothing, a read-only key is 403", async () => {
		const id = await partner("BB-HOSTILE", processed);
		const message = await submit(id);
		await until(message, (m) => m.status === "delivered");
		for (const path of ["msg_999999/retry", "../../auth/me/cancel", "msg_%00/resend", `${"x".repeat(5000)}/cancel`]) {
			const answer = await fetch(`${server.base}/v1/messages/${path}`, {
				method: "POST",
				headers: { authorization: `Bearer ${liveKey}` },
			});
			expect(answer.status, path.slice(0, 40)).toBeGreaterThanOrEqual(400);
			expect(answer.status, path.slice(0, 40)).toBeLessThan(500);
		}
		const stranger = await register(server.base);
		expect((await curlPost(`/v1/messages/${message}/resend`, stranger.token)).status).toBe(404);
		const reader = await createKey(server.base, stranger.token, {
			scope: "account",
			environment: "live",
			permissions: ["messages:read"],
		});
		expect((await curlPost(`/v1/messages/${message}/retry`, reader)).status).toBe(403);
	});
});
