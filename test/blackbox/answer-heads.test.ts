/**
 * The heads the built server writes (issue #20: X-Request-Id and X-RateLimit-* are set on Node's
 * response before the app answers, and an AS2 request's fields are read from the raw header
 * list): every kind of answer carries the request id exactly once — JSON, an error, an unmatched route, an answer
 * given before the body was read (Connection: close), an AS2 refusal — and an AS2 request's
 * repeated field is still read as one value joined with ", ".
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, curl, type RawResponse, rawRequest, register } from "./clients.ts";

let server: BuiltServer;
let token: string;
beforeAll(async () => {
	// The lingering read after an early answer ends after 1 s of silence instead of 5 s.
	server = await startBuiltServer({ env: { AS2_LINGER_SECONDS: "1" } });
	token = (await register(server.base)).token;
}, 90_000);
afterAll(() => server?.stop());

/** Each X-Request-Id field of a raw answer's head. */
function requestIds(response: RawResponse): string[] {
	const head = response.raw.split("\r\n\r\n")[0] ?? "";
	return [...head.matchAll(/^x-request-id: *(.*)$/gim)].map((match) => match[1]!.trim());
}

/** Each value of a field of a raw answer's head, by its name in any case. */
function fieldValues(response: RawResponse, name: string): string[] {
	const head = response.raw.split("\r\n\r\n")[0] ?? "";
	return head
		.split("\r\n")
		.filter((line) => line.toLowerCase().startsWith(`${name}:`))
		.map((line) => line.slice(name.length + 1).trim());
}

const closing = (lines: string[]) => `${[...lines, "Host: 127.0.0.1", "Connection: close"].join("\r\n")}\r\n\r\n`;

describe("X-Request-Id on the built server's answers", () => {
	it("is the caller's on a JSON answer, an error and an unmatched route (fetch)", async () => {
		for (const [path, options, status] of [
			["/v1/account", { token }, 200],
			["/v1/account", {}, 401],
			["/v1/no-such-route", { token }, 404],
		] as const) {
			const id = `fetch-${randomUUID()}`;
			const answer = await call(server.base, "GET", path, { ...options, headers: { "x-request-id": id } });
			expect(answer.status, `${path} ${answer.text}`).toBe(status);
			expect(answer.headers.get("x-request-id"), path).toBe(id);
		}
	});

	it("is there once on the wire, with curl and with a raw socket", async () => {
		const id = `curl-${randomUUID()}`;
		const curled = await curl(["-D", "-", "-o", "/dev/null", "-H", `X-Request-Id: ${id}`, `${server.base}/health`]);
		expect(curled.code).toBe(0);
		expect([...curled.stdout.matchAll(/^x-request-id: *(\S+)/gim)].map((m) => m[1])).toEqual([id]);

		const raw = await rawRequest(server.port, closing(["GET /v1/account HTTP/1.1", `Authorization: Bearer ${token}`]));
		expect(raw.status).toBe(200);
		expect(requestIds(raw)).toHaveLength(1);
		expect(requestIds(raw)[0]).toMatch(/^[0-9a-f-]{36}$/);
	});

	it("replaces an unsafe id with a new one", async () => {
		const raw = await rawRequest(server.port, closing(["GET /health HTTP/1.1", "X-Request-Id: a b<script>"]));
		expect(raw.status).toBe(200);
		expect(requestIds(raw)).toHaveLength(1);
		expect(requestIds(raw)[0]).toMatch(/^[0-9a-f-]{36}$/);
	});

	it("is on an answer given before the body was read, with Connection: close", async () => {
		const id = `early-${randomUUID()}`;
		const head = `${[
			"POST /v1/messages HTTP/1.1",
			"Host: 127.0.0.1",
			`Authorization: Bearer ${token}`,
			`X-Request-Id: ${id}`,
			"Content-Type: application/json",
			"Content-Length: 900000000",
		].join("\r\n")}\r\n\r\n`;
		const raw = await rawRequest(server.port, head, [], { timeoutMs: 15_000 });
		expect(raw.status).toBe(413);
		expect(requestIds(raw)).toEqual([id]);
		expect(raw.raw).toMatch(/^connection: close\r$/im);
	});

	it("is on an AS2 refusal, whose repeated AS2-To is read joined", async () => {
		const id = `as2-${randomUUID()}`;
		const body = "not a message";
		const raw = await rawRequest(
			server.port,
			closing([
				"POST /as2/receive HTTP/1.1",
				`X-Request-Id: ${id}`,
				"AS2-Version: 1.2",
				"AS2-From: ALPHA",
				"AS2-To: NOBODY-ONE",
				"as2-to: NOBODY-TWO",
				"Message-ID: <1@alpha>",
				"Content-Type: application/edi-x12",
				`Content-Length: ${body.length}`,
			]),
			[body],
		);
		expect(requestIds(raw)).toEqual([id]);
		expect(raw.status).toBe(404);
		expect(raw.raw).toContain("NOBODY-ONE, NOBODY-TWO");
	});
});

describe("X-RateLimit-* on the built server's answers", () => {
	const RATE_LIMIT_FIELDS = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"];

	it("is there once each, as numbers, on a 202, a 404, a 422 and a refused X-Tenant-ID", async () => {
		const json = (body: string) => ["Content-Type: application/json", `Content-Length: ${Buffer.byteLength(body)}`];
		const submit = JSON.stringify({ partner_id: "prt_999999", content_type: "text/plain", payload: { content: "x" } });
		const invalid = JSON.stringify({ partner_id: "", content_type: "text/plain", payload: { content: "x" } });
		for (const [label, lines, body, status] of [
			["GET /v1/account", ["GET /v1/account HTTP/1.1"], "", 200],
			["unknown partner", ["POST /v1/messages HTTP/1.1", ...json(submit)], submit, 404],
			["invalid body", ["POST /v1/messages HTTP/1.1", ...json(invalid)], invalid, 422],
			["foreign tenant", ["GET /v1/partners HTTP/1.1", "X-Tenant-ID: ten_999999"], "", 404],
		] as const) {
			const raw = await rawRequest(
				server.port,
				closing([...lines, `Authorization: Bearer ${token}`]),
				body ? [body] : [],
			);
			expect(raw.status, `${label}: ${raw.raw.slice(0, 300)}`).toBe(status);
			for (const name of RATE_LIMIT_FIELDS) {
				const values = fieldValues(raw, name);
				expect(values, `${label}: ${name}`).toHaveLength(1);
				expect(values[0], `${label}: ${name}`).toMatch(/^\d+$/);
			}
		}
	});
});

// RFC 1945 has no Host field and RFC 9112 §3.2 requires it of HTTP/1.1 only: an HTTP/1.0 client
// may leave it out. Load balancers' health checks do (HAProxy's `option httpchk GET /health`
// sends `GET /health HTTP/1.0` and nothing else), and a 400 there takes the server out of rotation.
describe("an HTTP/1.0 request without Host", () => {
	it("is answered: the health check and an authenticated API read", async () => {
		const health = await rawRequest(server.port, "GET /health HTTP/1.0\r\n\r\n");
		expect(health.status, health.raw).toBe(200);
		expect(health.raw).toContain('{"status":"ok"}');
		const account = await rawRequest(server.port, `GET /v1/account HTTP/1.0\r\nAuthorization: Bearer ${token}\r\n\r\n`);
		expect(account.status, account.raw).toBe(200);
		expect(requestIds(account)).toHaveLength(1);
	});

	it("is still refused over HTTP/1.1, which requires Host", async () => {
		const refused = await rawRequest(server.port, "GET /health HTTP/1.1\r\nConnection: close\r\n\r\n");
		expect(refused.status, refused.raw).toBe(400);
	});
});
