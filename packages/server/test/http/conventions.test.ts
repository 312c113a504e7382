import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { errorSchema, validationErrorSchema } from "../../src/http/openapi.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
let key: string;
let accountId: string;
beforeEach(async () => {
	t = createTestApp();
	const owner = await register(t, "Conventions");
	key = await createKey(t, owner.token, { scope: "account", permissions: ["*"] });
	accountId = owner.accountId;
});
afterEach(() => t.close());

describe("error shapes and statuses", () => {
	it("answers an unknown route with 404 resource_error NOT_FOUND", async () => {
		for (const path of ["/v1/nothing", "/nothing", "/v1/tenants/tnt_000001/nothing"]) {
			const response = await t.call("GET", path, { token: key });
			expect(response.status).toBe(404);
			expect(v.is(errorSchema, response.json)).toBe(true);
			expect(response.json.error).toMatchObject({ type: "resource_error", code: "NOT_FOUND" });
		}
	});

	it("answers malformed JSON with 400 INVALID_JSON", async () => {
		const response = await t.call("POST", "/v1/tenants", { token: key, body: '{"name": ' });
		expect(response.status).toBe(400);
		expect(v.is(errorSchema, response.json)).toBe(true);
		expect(response.json.error).toMatchObject({ type: "validation_error", code: "INVALID_JSON" });
	});

	it("answers a body in another media type with 415", async () => {
		const response = await t.call("POST", "/v1/tenants", {
			token: key,
			body: "name=x",
			headers: { "content-type": "text/plain" },
		});
		expect(response.status).toBe(415);
		expect(response.json.error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
	});

	it("gives 401, 403, 415 and 429 the categorized shape of the error schema", async () => {
		const categorized = (response: { status: number; json: unknown; text: string }, status: number) => {
			expect(response.status, response.text).toBe(status);
			expect(v.is(errorSchema, response.json), response.text).toBe(true);
			// Categorized, not the 422 shape: no field errors.
			expect(response.json).not.toHaveProperty("errors");
			return (response.json as v.InferOutput<typeof errorSchema>).error;
		};
		// 401: no credential, an unknown key, an expired key (spec, Authentication errors).
		expect(categorized(await t.call("GET", "/v1/tenants"), 401)).toMatchObject({
			type: "authentication_error",
			code: "invalid_api_key",
		});
		expect(categorized(await t.call("GET", "/v1/tenants", { token: "pk_live_unknown" }), 401)).toMatchObject({
			type: "authentication_error",
			code: "invalid_api_key",
		});
		const owner = await register(t, "Shapes");
		const expiring = await createKey(t, owner.token, {
			scope: "tenant",
			tenant_id: owner.tenantId,
			permissions: ["partners:read"],
			expires_at: new Date(t.clock.now().getTime() + 60_000).toISOString(),
		});
		t.clock.advance(120);
		expect(categorized(await t.call("GET", "/v1/partners", { token: expiring }), 401)).toMatchObject({
			type: "authentication_error",
			code: "expired_api_key",
		});
		// 403: a tenant key on tenant management, a key without the permission.
		const tenantKey = await createKey(t, owner.token, {
			scope: "tenant",
			tenant_id: owner.tenantId,
			permissions: ["partners:read"],
		});
		for (const path of ["/v1/tenants", "/v1/webhook-endpoints"]) {
			expect(categorized(await t.call("GET", path, { token: tenantKey }), 403)).toMatchObject({
				type: "authorization_error",
				code: "insufficient_scope",
			});
		}
		// 415: a body in a media type the API does not read.
		expect(
			categorized(
				await t.call("POST", "/v1/tenants", { token: key, body: "name=x", headers: { "content-type": "text/plain" } }),
				415,
			),
		).toMatchObject({ type: "validation_error", code: "UNSUPPORTED_MEDIA_TYPE" });
		// 429: the Free plan's burst of 20 spent.
		t.clock.advance(60);
		let refused: Awaited<ReturnType<typeof t.call>> | undefined;
		for (let i = 0; i < 25 && !refused; i++) {
			const response = await t.call("GET", "/v1/tenants", { token: key });
			if (response.status === 429) refused = response;
		}
		expect(refused, "no 429 after 25 requests").toBeDefined();
		expect(categorized(refused!, 429)).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" });
	});

	it("answers an Accept that excludes JSON with 406, and accepts */* and none", async () => {
		expect((await t.call("GET", "/v1/tenants", { token: key, headers: { accept: "text/html" } })).status).toBe(406);
		expect(
			(await t.call("GET", "/v1/tenants", { token: key, headers: { accept: "text/html, */*;q=0.1" } })).status,
		).toBe(200);
		expect((await t.call("GET", "/v1/tenants", { token: key, headers: { accept: "application/json" } })).status).toBe(
			200,
		);
		expect((await t.call("GET", "/v1/tenants", { token: key })).status).toBe(200);
	});

	it("answers a body over the limit with 413 before reading it all", async () => {
		const response = await t.call("POST", "/v1/tenants", {
			token: key,
			body: JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) }),
		});
		expect(response.status).toBe(413);
		expect(response.json.error.code).toBe("REQUEST_TOO_LARGE");
	});

	it("gives every 422 both shapes at once", async () => {
		const response = await t.call("POST", "/v1/tenants", { token: key, body: { name: 42 } });
		expect(response.status).toBe(422);
		expect(v.is(validationErrorSchema, response.json)).toBe(true);
		expect(response.json).toEqual({
			message: "name must be a string",
			errors: { name: ["must be a string"] },
			error: { type: "validation_error", code: "VALIDATION_FAILED", message: "name must be a string" },
		});
	});

	it("never leaks an unexpected error: 500 server_error with the request id only", async () => {
		const exploding = createTestApp({}, (app) =>
			app.get("/v1/__explode", () => {
				throw new Error("SELECT * FROM secrets -- driver detail");
			}),
		);
		const owner = await register(exploding);
		const response = await exploding.call("GET", "/v1/__explode", {
			token: owner.token,
			headers: { "x-request-id": "req-123" },
		});
		await exploding.close();
		expect(response.status).toBe(500);
		expect(response.text).not.toContain("SELECT");
		expect(response.json).toEqual({
			message: "internal server error",
			error: {
				type: "server_error",
				code: "INTERNAL_ERROR",
				message: "internal server error",
				details: { request_id: "req-123" },
			},
		});
		expect(response.headers.get("x-request-id")).toBe("req-123");
	});
});

describe("a 422 names every invalid field (issue #16, defect 9)", () => {
	it("a webhook endpoint with an ftp:// URL and a short secret: url and secret", async () => {
		const response = await t.call("POST", "/v1/webhook-endpoints", {
			token: key,
			body: { url: "ftp://hooks.example.com/x", events: ["message.sent"], secret: "short" },
		});
		expect(response.status, response.text).toBe(422);
		expect(v.is(validationErrorSchema, response.json)).toBe(true);
		expect(Object.keys(response.json.errors).sort()).toEqual(["secret", "url"]);
		// The spec's specific code of the URL check is kept (decisions.md, Errors).
		expect(response.json.error.code).toBe("INVALID_ENDPOINT_URL");
		expect(response.json.message).toMatch(/secret .*; url /);
	});

	it("the service's checks together and beside the schema's: url, events and active on create and update", async () => {
		const created = await t.call("POST", "/v1/webhook-endpoints", {
			token: key,
			body: { url: "https://127.0.0.1/x", events: ["no.such.event"] },
		});
		expect(created.status, created.text).toBe(422);
		expect(Object.keys(created.json.errors).sort()).toEqual(["events", "url"]);
		const endpoint = await t.call("POST", "/v1/webhook-endpoints", {
			token: key,
			body: { url: "https://hooks.example.com/x", events: ["*"] },
		});
		const patched = await t.call("PATCH", `/v1/webhook-endpoints/${endpoint.json.data.id}`, {
			token: key,
			body: { url: "not a url", events: ["nope"], active: "yes" },
		});
		expect(patched.status, patched.text).toBe(422);
		expect(Object.keys(patched.json.errors).sort()).toEqual(["active", "events", "url"]);
		// Nothing changed.
		const unchanged = await t.call("GET", `/v1/webhook-endpoints/${endpoint.json.data.id}`, { token: key });
		expect(unchanged.json.data.url).toBe("https://hooks.example.com/x");
	});

	it("partners, master partners and tenants: the schema's fields and the format checks together", async () => {
		const bad = {
			name: "",
			as2_id: "bad id!",
			url: "ftp://x.example/as2",
			encrypt_algorithm: "rot13",
			mdn: { url: "nope" },
		};
		for (const path of ["/v1/partners", `/v1/accounts/${accountId}/partners`]) {
			const response = await t.call("POST", path, { token: key, body: bad });
			expect(response.status, response.text).toBe(422);
			expect(Object.keys(response.json.errors).sort(), path).toEqual([
				"as2_id",
				"encrypt_algorithm",
				"mdn.url",
				"name",
				"url",
			]);
			expect(response.json.error.code, path).toBe("INVALID_AS2_ID_FORMAT");
		}
		const tenant = await t.call("POST", "/v1/tenants", { token: key, body: { name: "", as2_id: "bad id!" } });
		expect(tenant.status, tenant.text).toBe(422);
		expect(Object.keys(tenant.json.errors).sort()).toEqual(["as2_id", "name"]);
	});
});

describe("NUL (U+0000) and lone surrogates in request text: a 4xx on every store", () => {
	it("in a path, a query, a JSON body, a form, and beside a payload that may hold it", async () => {
		expect((await t.call("GET", "/v1/partners/prt_%00", { token: key })).status).toBe(404);
		const query = await t.call("GET", "/v1/partners?search=a%00b&page=1", { token: key });
		expect(query.status, query.text).toBe(422);
		expect(query.json.errors).toEqual({ search: ["must not contain NUL (U+0000) characters"] });
		const json = await t.call("POST", "/v1/partners", {
			token: key,
			body: {
				name: "a\u0000b",
				as2_id: "NULPEER",
				url: "https://nul.example/as2",
				http: { headers: { "X-A": "\u0000" } },
			},
		});
		expect(json.status, json.text).toBe(422);
		expect(Object.keys(json.json.errors)).toEqual(expect.arrayContaining(["http.headers.X-A", "name"]));
		const form = await t.call("POST", "/auth/login", {
			body: "email=a%00%40example.com&password=x",
			headers: { "content-type": "application/x-www-form-urlencoded" },
		});
		expect(form.status, form.text).toBe(422);
		expect(Object.keys(form.json.errors)).toEqual(["email"]);
		// A payload may hold NUL; the partner id beside it may not.
		const message = await t.call("POST", "/v1/messages", {
			token: key,
			body: { partner_id: "prt_\u0000", content_type: "text/plain", payload: { content: "a\u0000b" } },
		});
		expect(message.status, message.text).toBe(422);
		expect(Object.keys(message.json.errors)).toEqual(["partner_id"]);
	});

	it("never hands text no store can take to a check or an authorization that queries the store", async () => {
		const keyBody = { name: "", scopes: ["messages:read"], tenant_id: "tnt_\u0000" };
		const apiKey = await t.call("POST", "/v1/api-keys", { token: key, body: keyBody });
		expect([apiKey.status, Object.keys(apiKey.json.errors).sort()]).toEqual([422, ["name", "tenant_id"]]);
		const certificate = await t.call("POST", "/v1/certificates", {
			token: key,
			body: { name: "", type: "partner", usage: "both", partner_id: "prt_\u0000", certificate: "garbage" },
		});
		expect([certificate.status, Object.keys(certificate.json.errors).sort()]).toEqual([
			422,
			["certificate", "name", "partner_id"],
		]);
		const registration = await t.call("POST", "/auth/register", {
			body: { name: "", email: "a\u0000@example.com", password: "long enough", password_confirmation: "long enough" },
		});
		expect([registration.status, Object.keys(registration.json.errors).sort()]).toEqual([422, ["email", "name"]]);
	});

	it("a lone surrogate (no character at all) in a tenant's name: 422, not a certificate that fails", async () => {
		const tenant = await t.call("POST", "/v1/tenants", { token: key, body: { name: "a\ud800b" } });
		expect(tenant.status, tenant.text).toBe(422);
		expect(tenant.json.errors).toEqual({ name: ["must be well-formed Unicode (it holds a lone surrogate)"] });
		// A pair is a character: an emoji is a name like any other.
		expect((await t.call("POST", "/v1/tenants", { token: key, body: { name: "Zoë 😀" } })).status).toBe(201);
	});
});

describe("bodiless requests (issue #16, defect 6)", () => {
	/**
	 * A request as @hono/node-server hands it over: `Request.body` is a stream on every
	 * request but GET and HEAD, whether the client sent a body or not, and `c.env.incoming`
	 * is the Node request. Only the headers say whether there is a body (RFC 9112 §6.3).
	 */
	const asNodeServer = (method: string, path: string, headers: Record<string, string>, bytes = "") =>
		t.app.request(
			path,
			{ method, headers: { authorization: `Bearer ${key}`, ...headers }, body: bytes, duplex: "half" } as RequestInit,
			{ incoming: {} },
		);

	it("answers a DELETE or POST without Content-Length and Transfer-Encoding as bodiless, never 415", async () => {
		const partner = await t.call("POST", "/v1/partners", {
			token: key,
			body: { name: "Bodiless", as2_id: "BODILESS", url: "https://bodiless.example/as2" },
		});
		const id = partner.json.data.id;
		const deactivated = await asNodeServer("POST", `/v1/partners/${id}/deactivate`, {});
		expect(deactivated.status, await deactivated.clone().text()).toBe(200);
		const deleted = await asNodeServer("DELETE", `/v1/partners/${id}`, {});
		expect(deleted.status, await deleted.clone().text()).toBe(200);
		// Content-Length: 0 (what fetch sends) is bodiless too, whatever the Content-Type.
		expect((await asNodeServer("DELETE", "/v1/partners/prt_999999", { "content-length": "0" })).status).toBe(404);
	});

	it("still answers 415 to body bytes in a type the API does not read", async () => {
		const declared = await asNodeServer(
			"DELETE",
			"/v1/partners/prt_999999",
			{
				"content-type": "text/plain",
				"content-length": "5",
			},
			"hello",
		);
		expect(declared.status).toBe(415);
		const chunked = await asNodeServer(
			"POST",
			"/v1/tenants",
			{
				"content-type": "text/plain",
				"transfer-encoding": "chunked",
			},
			"hello",
		);
		expect(chunked.status).toBe(415);
	});
});

describe("body formats", () => {
	it("accepts application/x-www-form-urlencoded with lists and booleans", async () => {
		const form = new URLSearchParams([
			["name", "form key"],
			["scope", "account"],
			["permissions[]", "tenants:read"],
			["permissions[]", "accounts:read"],
		]);
		const response = await t.call("POST", "/v1/api-keys", {
			token: key,
			body: form.toString(),
			headers: { "content-type": "application/x-www-form-urlencoded" },
		});
		expect(response.status).toBe(201);
		expect(response.json.data.permissions).toEqual(["tenants:read", "accounts:read"]);
	});

	it("accepts multipart/form-data", async () => {
		const form = new FormData();
		form.append("name", "Multipart Tenant");
		form.append("as2_id", "MULTI");
		const response = await t.app.request("/v1/tenants", {
			method: "POST",
			body: form,
			headers: { authorization: `Bearer ${key}` },
		});
		expect(response.status).toBe(201);
		expect(((await response.json()) as { data: { as2_id: string } }).data.as2_id).toBe("MULTI");
	});
});

describe("operations", () => {
	it("GET /health answers 200 {status: ok} without a key", async () => {
		const response = await t.call("GET", "/health");
		expect(response.status).toBe(200);
		expect(response.json).toEqual({ status: "ok" });
	});

	it("GET /metrics exposes request counts and latency by route and status", async () => {
		await t.call("GET", "/v1/tenants", { token: key });
		const response = await t.call("GET", "/metrics");
		expect(response.status).toBe(200);
		expect(response.text).toMatch(/as2kit_http_requests_total\{method="GET",route="\/v1\/tenants",status="200"\} 1/);
		expect(response.text).toMatch(
			/as2kit_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/v1\/tenants"/,
		);
	});

	it("GET /docs serves the interactive reference pointing at openapi.json", async () => {
		const response = await t.call("GET", "/docs");
		expect(response.status).toBe(200);
		expect(response.headers.get("content-type")).toContain("text/html");
		expect(response.text).toContain("openapi.json");
	});

	it("echoes a sane X-Request-Id and replaces an unsafe one", async () => {
		expect(
			(await t.call("GET", "/health", { headers: { "x-request-id": "abc-123" } })).headers.get("x-request-id"),
		).toBe("abc-123");
		const replaced = (await t.call("GET", "/health", { headers: { "x-request-id": "bad id\u0001" } })).headers.get(
			"x-request-id",
		);
		expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
	});
});

/**
 * Every write operation of `/openapi.json`, each sent a body with two (or, where the body has
 * one field, one) independent invalid fields, one refused by the schema and one by the
 * service's checks where the operation has both: one 422 names them all (issue #16, defect 9).
 * An operation that takes a body without a row here fails the test.
 */
describe("registration's own checks beside the schema's", () => {
	it("names a taken email with a short password; without the registration code, says nothing of the email", async () => {
		const existing = await register(t, "Taken");
		const body = { name: "New", email: existing.email, password: "short", password_confirmation: "short" };
		const open = await t.call("POST", "/auth/register", { body });
		expect([open.status, Object.keys(open.json.errors).sort()]).toEqual([422, ["email", "password"]]);
		const gated = createTestApp({ registrationCode: "letmein" });
		try {
			const first = await gated.call("POST", "/auth/register", {
				body: {
					...body,
					email: "first@example.com",
					password: "long enough",
					password_confirmation: "long enough",
					registration_code: "letmein",
				},
			});
			expect(first.status, first.text).toBe(201);
			const guess = await gated.call("POST", "/auth/register", { body: { ...body, email: "first@example.com" } });
			expect([guess.status, Object.keys(guess.json.errors).sort()]).toEqual([422, ["password", "registration_code"]]);
		} finally {
			await gated.close();
		}
	});
});

describe("every write operation names every invalid field in one 422", () => {
	interface Row {
		path: string;
		body: unknown;
		fields: string[];
		token?: string;
	}
	it("for every operation of the document that takes a body", async () => {
		// Enterprise: the plan's rate limit stays out of the way of these requests.
		expect((await t.call("PATCH", "/v1/account", { token: key, body: { plan: "enterprise" } })).status).toBe(200);
		const owner = await register(t, "Every field");
		const ok = async (method: string, path: string, body: unknown) => {
			const response = await t.call(method, path, { token: key, body });
			expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300);
			return response.json.data.id as string;
		};
		const partnerBody = (as2Id: string) => ({ name: "Partner", as2_id: as2Id, url: "https://as2.example.com/as2" });
		const partner = await ok("POST", "/v1/partners", partnerBody("EVERY-FIELD"));
		const master = await ok("POST", `/v1/accounts/${accountId}/partners`, partnerBody("EVERY-FIELD-MASTER"));
		const tenant = await ok("POST", "/v1/tenants", { name: "Every field tenant" });
		const webhook = await ok("POST", "/v1/webhook-endpoints", { url: "https://hooks.example.com/x", events: ["*"] });
		const past = "2020-01-01T00:00:00Z";
		const badPartner = { name: "", url: "ftp://as2.example.com/as2" };
		const ROWS: Record<string, Row> = {
			"POST /auth/register": {
				path: "/auth/register",
				body: { name: "", email: owner.email, password: "correct horse battery", password_confirmation: "x" },
				fields: ["email", "name", "password_confirmation"],
			},
			"POST /auth/login": { path: "/auth/login", body: { email: "", password: "" }, fields: ["email", "password"] },
			"POST /v1/api-keys": {
				path: "/v1/api-keys",
				body: { name: "", scopes: ["accounts:read"], expires_at: past },
				fields: ["expires_at", "name", "permissions"],
			},
			"PATCH /v1/account": { path: "/v1/account", body: { name: "", plan: "gold" }, fields: ["name", "plan"] },
			"POST /v1/tenants": { path: "/v1/tenants", body: { name: "", as2_id: "bad id!" }, fields: ["as2_id", "name"] },
			"PATCH /v1/tenants/{tenant_id}": {
				path: `/v1/tenants/${tenant}`,
				body: { name: "", as2_id: "bad id!" },
				fields: ["as2_id", "name"],
			},
			"POST /v1/partners": { path: "/v1/partners", body: { ...badPartner, as2_id: "X" }, fields: ["name", "url"] },
			"PATCH /v1/partners/{partner_id}": {
				path: `/v1/partners/${partner}`,
				body: badPartner,
				fields: ["name", "url"],
			},
			"POST /v1/partners/{partner_id}/certificates": {
				path: `/v1/partners/${partner}/certificates`,
				body: { name: "", usage: "both", certificate: "not a certificate" },
				fields: ["certificate", "name"],
			},
			"POST /v1/partners/{partner_id}/test": {
				path: `/v1/partners/${partner}/test`,
				body: { test_type: "everything" },
				fields: ["test_type"],
			},
			"POST /v1/accounts/{account_id}/partners": {
				path: `/v1/accounts/${accountId}/partners`,
				body: { ...badPartner, as2_id: "X" },
				fields: ["name", "url"],
			},
			"PATCH /v1/accounts/{account_id}/partners/{partner_id}": {
				path: `/v1/accounts/${accountId}/partners/${master}`,
				body: badPartner,
				fields: ["name", "url"],
			},
			"POST /v1/certificates": {
				path: "/v1/certificates",
				body: { name: "", type: "partner", usage: "both", partner_id: partner, certificate: "not a certificate" },
				fields: ["certificate", "name"],
			},
			"POST /v1/messages": {
				path: "/v1/messages",
				body: {
					partner_id: partner,
					content_type: "text/plain",
					payload: { content: "x" },
					subject: "bell \u0007",
					headers: { "bad name": "x" },
					scheduled_at: past,
				},
				fields: ["headers", "scheduled_at", "subject"],
			},
			"POST /v1/epcis/validate": {
				path: "/v1/epcis/validate",
				body: { document: 5, validation_rules: 5 },
				fields: ["document", "validation_rules"],
			},
			"POST /v1/epcis/query": {
				path: "/v1/epcis/query",
				body: { query_type: 7, parameters: "x" },
				fields: ["parameters", "query_type"],
			},
			"POST /v1/webhook-endpoints": {
				path: "/v1/webhook-endpoints",
				body: { url: "ftp://hooks.example.com/x", events: ["no.such"], secret: "short" },
				fields: ["events", "secret", "url"],
			},
			"PATCH /v1/webhook-endpoints/{webhook_id}": {
				path: `/v1/webhook-endpoints/${webhook}`,
				body: { url: "ftp://hooks.example.com/x", events: ["no.such"], active: "yes" },
				fields: ["active", "events", "url"],
			},
		};
		const document = (await t.call("GET", "/openapi.json")).json as {
			paths: Record<string, Record<string, { requestBody?: unknown; security?: unknown[] }>>;
		};
		const AS2_EDGE = ["/as2/receive", "/as2/mdn"];
		const writes = Object.entries(document.paths).flatMap(([path, methods]) =>
			Object.entries(methods)
				.filter(([, operation]) => operation.requestBody !== undefined && !AS2_EDGE.includes(path))
				.map(([method]) => `${method.toUpperCase()} ${path}`),
		);
		expect(
			writes.filter((w) => !(w in ROWS)),
			"operations without a row",
		).toEqual([]);
		expect(
			Object.keys(ROWS).filter((r) => !writes.includes(r)),
			"rows of no operation",
		).toEqual([]);
		const answers: Record<string, unknown> = {};
		const wanted: Record<string, unknown> = {};
		for (const [operation, row] of Object.entries(ROWS)) {
			const response = await t.call(operation.split(" ")[0]!, row.path, { token: row.token ?? key, body: row.body });
			answers[operation] = [response.status, Object.keys(response.json?.errors ?? {}).sort()];
			wanted[operation] = [422, row.fields];
		}
		expect(answers).toEqual(wanted);
	});
});

describe("POST /v1/messages names the schema's fields and the service's together", () => {
	it("in JSON: an empty payload beside a subject and a header the service refuses", async () => {
		const partner = await t.call("POST", "/v1/partners", {
			token: key,
			body: { name: "Fields", as2_id: "FIELDS", url: "https://as2.example.com/as2" },
		});
		const response = await t.call("POST", "/v1/messages", {
			token: key,
			body: {
				partner_id: partner.json.data.id,
				content_type: "text/plain",
				payload: { content: "" },
				subject: "bell \u0007",
				headers: { "bad name": "x" },
			},
		});
		expect(response.status).toBe(422);
		expect(Object.keys(response.json.errors).sort()).toEqual(["headers", "payload.content", "subject"]);
	});

	it("in a form: no file beside a missing content_type and a subject the service refuses", async () => {
		const form = new FormData();
		form.set("partner_id", "prt_000001");
		form.set("subject", "bell \u0007");
		const response = await t.app.request("/v1/messages", {
			method: "POST",
			headers: { authorization: `Bearer ${key}` },
			body: form,
		});
		expect(response.status).toBe(422);
		const { errors } = (await response.json()) as { errors: Record<string, string[]> };
		expect(Object.keys(errors).sort()).toEqual(["content_type", "file", "subject"]);
	});
});
