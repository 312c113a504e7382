import { type AddressInfo, createServer } from "node:net";
import { Writable } from "node:stream";
import { serve } from "@hono/node-server";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Logger } from "../../src/service/deps.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

/**
 * Logs are pino JSON lines with a `requestId` (README, LOG_LEVEL): every line written while a
 * request runs carries the id the response names in X-Request-Id. A real pino logger writes
 * into memory; requests run one at a time and no worker runs, so the lines between a
 * request's start and its answer are that request's.
 */
interface LogLine {
	level: number;
	time: number;
	msg: string;
	requestId?: string;
	[field: string]: unknown;
}

let lines: LogLine[];
let t: TestApp;
let key: string;
let owner: Awaited<ReturnType<typeof register>>;

beforeEach(async () => {
	lines = [];
	const sink = new Writable({
		write(chunk: Buffer, _encoding, done) {
			for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(line));
			done();
		},
	});
	const logger = pino({ level: "debug" }, sink) as unknown as Logger;
	t = createTestApp(
		{ allowHttp: true, allowPrivateTargets: true },
		(app) =>
			app
				.get("/v1/__explode", () => {
					throw new Error("driver detail");
				})
				// A response with immutable headers, as fetch() and Response.redirect() make.
				.get("/v1/__immutable", () => Response.redirect("https://example.com/", 302)),
		{ logger },
	);
	owner = await register(t, "Logged");
	key = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "test",
		permissions: ["*"],
	});
});
afterEach(() => t.close());

/** Runs one request and returns its response with the log lines written meanwhile. */
async function logged(request: () => Response | Promise<Response>) {
	const from = lines.length;
	const response = await request();
	await response.arrayBuffer();
	// pino writes through a stream: let it flush.
	await new Promise((resolve) => setImmediate(resolve));
	return { response, lines: lines.slice(from), requestId: response.headers.get("x-request-id") };
}

function expectAllCarry(result: Awaited<ReturnType<typeof logged>>) {
	expect(result.requestId).toBeTruthy();
	expect(result.lines.length).toBeGreaterThan(0);
	for (const line of result.lines) expect(line, JSON.stringify(line)).toMatchObject({ requestId: result.requestId });
}

const get = (path: string, headers: Record<string, string> = {}) =>
	t.app.request(path, { headers: { authorization: `Bearer ${key}`, ...headers } });

describe("request logs", () => {
	it("writes a JSON access line carrying the caller's X-Request-Id", async () => {
		const result = await logged(() => get("/v1/partners", { "x-request-id": "req-log-1" }));
		expect(result.response.status).toBe(200);
		expect(result.requestId).toBe("req-log-1");
		expectAllCarry(result);
		expect(result.lines).toContainEqual(
			expect.objectContaining({
				msg: "request",
				level: 30,
				requestId: "req-log-1",
				method: "GET",
				path: "/v1/partners",
				status: 200,
			}),
		);
	});

	it("binds a generated id when the caller sends none, a new one per request", async () => {
		const first = await logged(() => get("/v1/partners"));
		const second = await logged(() => get("/v1/partners"));
		expect(first.requestId).toMatch(/^[0-9a-f-]{36}$/);
		expect(second.requestId).not.toBe(first.requestId);
		expectAllCarry(first);
		expectAllCarry(second);
	});

	it("carries the id on the error line of a failing request, as the 500 body does", async () => {
		const result = await logged(() => get("/v1/__explode", { "x-request-id": "req-log-500" }));
		expect(result.response.status).toBe(500);
		expectAllCarry(result);
		const error = result.lines.find((line) => line.msg === "unexpected error");
		expect(error).toMatchObject({ level: 50, requestId: "req-log-500" });
		expect(JSON.stringify(error)).toContain("driver detail");
	});

	it("carries the id on 4xx answers and on unauthenticated requests", async () => {
		expectAllCarry(await logged(() => get("/v1/partners/prt_999999", { "x-request-id": "req-log-404" })));
		expectAllCarry(await logged(() => t.app.request("/v1/partners", { headers: { "x-request-id": "req-log-401" } })));
	});

	it("POST /v1/webhook-endpoints/{id}/test: the engine's warning when the attempt deactivates the endpoint carries the id", async () => {
		// A receiver that refuses connections: a closed port on loopback (allowed by AS2_ALLOW_PRIVATE_TARGETS).
		const closed = await new Promise<number>((resolve) => {
			const server = createServer().listen(0, "127.0.0.1", () => {
				const { port } = server.address() as AddressInfo;
				server.close(() => resolve(port));
			});
		});
		const endpoint = await t.call("POST", "/v1/webhook-endpoints", {
			token: key,
			body: { url: `http://127.0.0.1:${closed}/hook`, events: ["*"] },
		});
		const path = `/v1/webhook-endpoints/${endpoint.json.data.id}/test`;
		const post = () => t.app.request(path, { method: "POST", headers: { authorization: `Bearer ${key}` } });
		expectAllCarry(await logged(post)); // failing from now on
		t.clock.advance(3 * 24 * 3600 + 1); // failing for 3 days: the next failure deactivates it
		const result = await logged(post);
		expect(result.response.status).toBe(200);
		expect(result.lines.find((line) => line.msg === "webhook endpoint deactivated")).toBeDefined();
		expectAllCarry(result);
	});

	describe("on /as2/receive, where the engine itself logs", () => {
		let as2Id: string;
		beforeEach(async () => {
			const partner = await t.call("POST", "/v1/partners", {
				token: key,
				body: { name: "Supplier", as2_id: "SUPPLIER", url: "https://supplier.example/as2" },
			});
			// The partner must sign: a plain message from it is refused (decisions.md, Inbound security).
			await t.call("PATCH", `/v1/partners/${partner.json.data.id}`, {
				token: key,
				body: { inbound: { require_signed: true } },
			});
			as2Id = (await t.store.tenants.get(owner.accountId, owner.tenantId))!.as2Id;
		});

		const receive = (headers: Record<string, string>, body: string) =>
			t.app.request("/as2/receive", {
				method: "POST",
				headers: { "as2-version": "1.2", "as2-from": "SUPPLIER", "as2-to": as2Id, ...headers },
				body,
			});

		it("a refused inbound message: the engine's warning carries the request's id", async () => {
			const result = await logged(() =>
				receive(
					{
						"x-request-id": "req-as2-refused",
						"message-id": "<plain-1@supplier.example>",
						"content-type": "text/plain",
						"disposition-notification-to": "mailto:as2@supplier.example",
					},
					"unsigned order",
				),
			);
			expect(result.response.status).toBe(200);
			const refused = result.lines.find((line) => line.msg === "inbound message refused");
			expect(refused, JSON.stringify(result.lines)).toBeDefined();
			expectAllCarry(result);
		});

		it("an unreadable async MDN: the engine's warning carries the request's id", async () => {
			const result = await logged(() =>
				receive(
					{
						"x-request-id": "req-as2-mdn",
						"message-id": "<mdn-1@supplier.example>",
						"content-type": 'multipart/report; report-type=disposition-notification; boundary="b"',
					},
					"not a report",
				),
			);
			expect(result.response.status).toBe(400);
			expect(result.lines.find((line) => line.msg === "unreadable async MDN")).toBeDefined();
			expectAllCarry(result);
		});
	});
});

describe("X-Request-Id over Node HTTP (@hono/node-server responses)", () => {
	it("is on JSON answers, raw responses, errors, and responses with immutable headers", async () => {
		const server = serve({ fetch: t.app.fetch, hostname: "127.0.0.1", port: 0 });
		await new Promise<void>((resolve) => server.once("listening", () => resolve()));
		const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		try {
			const idOf = async (path: string, init: RequestInit = {}) => {
				const response = await fetch(`${base}${path}`, {
					...init,
					redirect: "manual",
					signal: AbortSignal.timeout(5000),
				});
				await response.arrayBuffer();
				return [response.status, response.headers.get("x-request-id")];
			};
			const given = { "x-request-id": "req-node-1" };
			expect(await idOf("/v1/partners", { headers: { ...given, authorization: `Bearer ${key}` } })).toEqual([
				200,
				"req-node-1",
			]);
			expect(await idOf("/v1/partners", { headers: given })).toEqual([401, "req-node-1"]);
			expect(await idOf("/as2/receive", { method: "POST", headers: given, body: "x" })).toEqual([400, "req-node-1"]);
			expect(await idOf("/v1/__immutable", { headers: { ...given, authorization: `Bearer ${key}` } })).toEqual([
				302,
				"req-node-1",
			]);
		} finally {
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	});
});
