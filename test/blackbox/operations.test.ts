/**
 * Issue #16, black-box suite A: every operation of the built server's `/openapi.json`, read
 * from the document (a new operation is covered, or fails here for want of a fixture), sent
 * over a real socket the way plain HTTP clients send it: bodiless where the operation takes
 * no body (with curl, as users type it, and with fetch), and with each body type the document
 * declares (JSON, URL-encoded, multipart) where it does. Path parameters point at real
 * objects of one account (operations-fixtures.ts).
 *
 * Every answer: never 5xx, never 415 for a request without a body (defect 6: every DELETE and
 * bodiless POST was 415), an error in the spec's shapes, X-RateLimit-* on every authenticated
 * /v1 answer, 404s included (defect 9). Problems are collected per request and reported all
 * at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call } from "./clients.ts";
import { type Answer, curlRequest, problemsOf } from "./operations-answers.ts";
import {
	createFixtures,
	documentedOperations,
	encodeBody,
	type Fixtures,
	fillPath,
	LOOPBACK_TARGETS_ENV,
	type LoopbackReceiver,
	type Operation,
	sampleBody,
	startLoopbackReceiver,
} from "./operations-fixtures.ts";

let server: BuiltServer;
let receiver: LoopbackReceiver;
let fixtures: Fixtures;
let operations: Operation[];
let requests = 0;
const started = performance.now();

beforeAll(async () => {
	receiver = await startLoopbackReceiver();
	// Professional: X-RateLimit-* are sent (Enterprise is unlimited) and its burst of 200 is
	// not spent by this suite.
	server = await startBuiltServer({ env: { AS2_DEFAULT_PLAN: "professional", ...LOOPBACK_TARGETS_ENV } });
	fixtures = await createFixtures(server.base, receiver);
	operations = await documentedOperations(server.base);
});
afterAll(async () => {
	console.info(
		`operations.test.ts: ${operations?.length} operations, ${requests} requests, ${Math.round((performance.now() - started) / 1000)} s`,
	);
	await server?.stop();
	await receiver?.close();
});

const isBodiless = (op: Operation) => op.mediaTypes.length === 0;
const label = (op: Operation, how: string) => `${op.method} ${op.path} (${how})`;

function contextOf(op: Operation, bodiless: boolean) {
	return {
		bodiless,
		rateLimited: op.path.startsWith("/v1/"),
		as2: op.path.startsWith("/as2/"),
		rawBody: op.method === "HEAD" || op.path.endsWith("/payload"),
	};
}

async function withFetch(op: Operation, init: { body?: string | FormData; headers?: Record<string, string> } = {}) {
	requests++;
	const response = await call(server.base, op.method, fillPath(op, fixtures), {
		token: op.public ? undefined : fixtures.token,
		...(init.body !== undefined ? { body: init.body } : {}),
		headers: init.headers ?? {},
	});
	return response as Answer;
}

async function withCurl(op: Operation, token = fixtures.token) {
	requests++;
	return curlRequest(
		`${server.base}${fillPath(op, fixtures)}`,
		op.method,
		op.public ? {} : { Authorization: `Bearer ${token}` },
	);
}

function record(problems: string[], what: string, answer: Answer, context: ReturnType<typeof contextOf>) {
	for (const problem of problemsOf(answer, context)) {
		problems.push(`${what} → ${answer.status}: ${problem} ${answer.text.slice(0, 200)}`);
	}
}

describe("every operation of /openapi.json over real sockets (curl and fetch)", () => {
	it("the document's operations all have fixtures for their path parameters", () => {
		expect(operations.length).toBeGreaterThanOrEqual(50);
		for (const op of operations) expect(() => fillPath(op, fixtures), label(op, "fixtures")).not.toThrow();
	});

	it("reads and bodiless POSTs: answered without 5xx or 415, with curl and with fetch", async () => {
		const problems: string[] = [];
		const bodilessPosts: Record<string, number> = {};
		const reads = operations.filter((op) => isBodiless(op) && (op.method === "GET" || op.method === "HEAD"));
		// Deactivations before activations: the fixtures end active, for the operations that follow.
		const posts = operations
			.filter((op) => isBodiless(op) && op.method === "POST" && op.path !== "/auth/logout")
			.sort((a, b) => Number(b.path.endsWith("/deactivate")) - Number(a.path.endsWith("/deactivate")));
		for (const op of [...reads, ...posts]) {
			const curled = await withCurl(op);
			record(problems, label(op, "curl"), curled, contextOf(op, true));
			if (op.method === "POST") bodilessPosts[op.path] = curled.status;
			record(problems, label(op, "fetch"), await withFetch(op), contextOf(op, true));
		}
		// A tenant the credential does not have: 404, still with X-RateLimit-* (defect 9).
		for (const op of reads.filter((op) => op.path.startsWith("/v1/"))) {
			const answer = await withFetch(op, { headers: { "x-tenant-id": "tnt_999999" } });
			if (answer.status !== 404) problems.push(`${label(op, "unknown X-Tenant-ID")} → ${answer.status}, not 404`);
			record(problems, label(op, "unknown X-Tenant-ID"), answer, contextOf(op, true));
		}
		expect(problems).toEqual([]);
		// The bodiless POSTs of the issue act on their objects (they answered 415 before).
		for (const path of [
			"/v1/partners/{partner_id}/deactivate",
			"/v1/partners/{partner_id}/activate",
			"/v1/partners/{partner_id}/validate",
			"/v1/certificates/{cert_id}/activate",
			"/v1/webhook-endpoints/{webhook_id}/test",
		]) {
			expect(bodilessPosts[path], path).toBe(200);
		}
	});

	it("operations with a body: in every media type the document declares, never 5xx", async () => {
		const problems: string[] = [];
		const withBody = operations.filter((op) => !isBodiless(op) && op.method !== "DELETE");
		for (const op of withBody) {
			for (const mediaType of op.mediaTypes) {
				const { body, headers } = encodeBody(sampleBody(op.bodySchema ?? {}, fixtures), mediaType);
				record(problems, label(op, mediaType), await withFetch(op, { body, headers }), contextOf(op, false));
			}
			// Sent without its body, an operation that needs one is a 422, never a 415.
			record(problems, label(op, "no body, curl"), await withCurl(op), contextOf(op, true));
		}
		expect(problems).toEqual([]);
	});

	it("DELETE with curl, as users type it, removes the object; again with fetch it is gone (404)", async () => {
		const problems: string[] = [];
		const statuses: Record<string, number> = {};
		// Deeper paths first: a partner's overrides before the partner.
		const deletes = operations
			.filter((op) => op.method === "DELETE")
			.sort((a, b) => b.path.split("/").length - a.path.split("/").length);
		for (const op of deletes) {
			const curled = await withCurl(op);
			statuses[op.path] = curled.status;
			record(problems, label(op, "curl"), curled, contextOf(op, true));
			record(problems, label(op, "fetch, again"), await withFetch(op), contextOf(op, true));
		}
		expect(problems).toEqual([]);
		for (const path of [
			"/v1/partners/{partner_id}",
			"/v1/accounts/{account_id}/partners/{partner_id}",
			"/v1/certificates/{cert_id}",
			"/v1/webhook-endpoints/{webhook_id}",
			"/v1/api-keys/{key_id}",
		]) {
			expect(statuses[path], path).toBe(200);
		}
	});

	it("POST /auth/logout with curl ends a session", async () => {
		const login = await call(server.base, "POST", "/auth/login", {
			body: { email: fixtures.user.email, password: fixtures.user.password },
		});
		expect(login.status, login.text).toBe(200);
		const logout = operations.find((op) => op.method === "POST" && op.path === "/auth/logout")!;
		const answer = await withCurl(logout, login.json.token);
		const problems: string[] = [];
		record(problems, label(logout, "curl"), answer, contextOf(logout, true));
		expect(problems).toEqual([]);
		expect(answer.status).toBe(200);
		expect((await call(server.base, "GET", "/v1/account", { token: login.json.token })).status).toBe(401);
		server.assertAlive();
	});
});
