import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { validationErrorSchema } from "../../src/http/openapi.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
beforeEach(() => {
	t = createTestApp();
});
afterEach(() => t.close());

const signup = (overrides: Record<string, unknown> = {}) => ({
	name: "Acme Corp.",
	email: "Ada@Example.com",
	password: "correct horse battery",
	password_confirmation: "correct horse battery",
	...overrides,
});

describe("POST /auth/register", () => {
	it("creates a user, an account on the default plan, its first tenant and a session", async () => {
		const response = await t.call("POST", "/auth/register", { body: signup() });
		expect(response.status).toBe(201);
		expect(response.json).toEqual({
			message: expect.any(String),
			user: { id: "usr_000001", name: "Acme Corp.", email: "ada@example.com" },
			tenant: { id: "tnt_000001", name: "Acme Corp.", pricing_tier: "free" },
			token: expect.stringMatching(/^sess_[0-9A-Za-z]{40}$/),
		});
		const events = await t.store.events.list({ accountId: "acc_000001" });
		expect(events.map((e) => e.kind)).toEqual(["account.created", "tenant.created", "certificate.uploaded"]);
		expect(events[0]?.data).toMatchObject({
			id: "acc_000001",
			name: "Acme Corp.",
			slug: "acme-corp",
			plan: "free",
			status: "active",
		});
		expect(events[1]?.data).toMatchObject({
			id: "tnt_000001",
			account_id: "acc_000001",
			as2_id: "ACME_CORP",
			status: "active",
		});
	});

	it("stores only a slow hash of the password and a keyed hash of the token", async () => {
		const response = await t.call("POST", "/auth/register", { body: signup() });
		const user = await t.store.users.findByEmail("ada@example.com");
		expect(user?.passwordHash).toMatch(/^scrypt\$10\$8\$1\$/);
		expect(user?.passwordHash).not.toContain("correct horse");
		const token: string = response.json.token;
		const session = await t.store.sessions.findByTokenHash(token);
		expect(session).toBeNull();
	});

	it.each([
		["a short password", { password: "short", password_confirmation: "short" }, "password"],
		["a mismatched confirmation", { password_confirmation: "something else" }, "password_confirmation"],
		["a malformed email", { email: "not-an-email" }, "email"],
		["a missing name", { name: undefined }, "name"],
	])("refuses %s with 422 naming the field", async (_, overrides, field) => {
		const response = await t.call("POST", "/auth/register", { body: signup(overrides) });
		expect(response.status).toBe(422);
		expect(v.is(validationErrorSchema, response.json)).toBe(true);
		expect(response.json.error.code).toBe("VALIDATION_FAILED");
		expect(Object.keys(response.json.errors)).toContain(field);
	});

	it("refuses an email already taken, in any case", async () => {
		await t.call("POST", "/auth/register", { body: signup() });
		const again = await t.call("POST", "/auth/register", { body: signup({ email: "ADA@example.com" }) });
		expect(again.status).toBe(422);
		expect(again.json.errors).toEqual({ email: ["has already been taken"] });
	});

	it("requires the registration code when the server has one", async () => {
		const guarded = createTestApp({ registrationCode: "let-me-in" });
		try {
			const without = await guarded.call("POST", "/auth/register", { body: signup() });
			expect(without.status).toBe(422);
			expect(without.json.errors).toHaveProperty("registration_code");
			const wrong = await guarded.call("POST", "/auth/register", { body: signup({ registration_code: "nope" }) });
			expect(wrong.status).toBe(422);
			const right = await guarded.call("POST", "/auth/register", { body: signup({ registration_code: "let-me-in" }) });
			expect(right.status).toBe(201);
		} finally {
			await guarded.close();
		}
	});

	it("gives a second account with the same name its own slug and AS2 identifier", async () => {
		await t.call("POST", "/auth/register", { body: signup() });
		const second = await t.call("POST", "/auth/register", { body: signup({ email: "bob@example.com" }) });
		const tenant = await t.store.tenants.get("acc_000002", second.json.tenant.id);
		expect(tenant?.as2Id).toBe("ACME_CORP_2");
		expect((await t.store.accounts.get("acc_000002"))?.slug).toBe("acme-corp-2");
	});
});

describe("POST /auth/login", () => {
	it("answers a new session token for the right password", async () => {
		await t.call("POST", "/auth/register", { body: signup() });
		const response = await t.call("POST", "/auth/login", {
			body: { email: "ADA@example.com", password: "correct horse battery" },
		});
		expect(response.status).toBe(200);
		expect(response.json).toEqual({
			message: expect.any(String),
			user: { id: "usr_000001", name: "Acme Corp.", email: "ada@example.com" },
			token: expect.stringMatching(/^sess_/),
		});
		const me = await t.call("GET", "/auth/me", { token: response.json.token });
		expect(me.status).toBe(200);
	});

	it.each([
		["a wrong password", { email: "ada@example.com", password: "wrong password" }],
		["an unknown email", { email: "nobody@example.com", password: "correct horse battery" }],
	])("refuses %s with 401 invalid_credentials", async (_, body) => {
		await t.call("POST", "/auth/register", { body: signup() });
		const response = await t.call("POST", "/auth/login", { body });
		expect(response.status).toBe(401);
		expect(response.json.error).toMatchObject({ type: "authentication_error", code: "invalid_credentials" });
	});
});

describe("GET /auth/me and POST /auth/logout", () => {
	it("lists the user's tenants with role and pricing tier", async () => {
		const { token } = await register(t, "Globex");
		await t.call("POST", "/v1/tenants", { token, body: { name: "Globex EU" } });
		const me = await t.call("GET", "/auth/me", { token });
		expect(me.json.tenants).toEqual([
			{ id: "tnt_000001", name: "Globex", slug: "globex", role: "owner", pricing_tier: "free" },
			{ id: "tnt_000002", name: "Globex EU", slug: "globex-eu", role: "owner", pricing_tier: "free" },
		]);
	});

	it("answers for an API key with the key's user and only the tenants the key reaches", async () => {
		const { token, userId } = await register(t, "Globex");
		await t.call("POST", "/v1/tenants", { token, body: { name: "Globex EU" } });
		const tenantKey = await createKey(t, token, { scope: "tenant", tenant_id: "tnt_000002", permissions: ["*"] });
		const me = await t.call("GET", "/auth/me", { token: tenantKey });
		expect(me.status).toBe(200);
		expect(me.json.user.id).toBe(userId);
		expect(me.json.tenants.map((x: { id: string }) => x.id)).toEqual(["tnt_000002"]);
	});

	it("revokes the session on logout; the token is refused afterwards", async () => {
		const { token } = await register(t);
		const out = await t.call("POST", "/auth/logout", { token });
		expect(out.status).toBe(200);
		const after = await t.call("GET", "/auth/me", { token });
		expect(after.status).toBe(401);
		expect(after.json.error.code).toBe("invalid_api_key");
	});

	it("refuses logout with an API key (a 422 pointing at key revocation)", async () => {
		const { token } = await register(t);
		const key = await createKey(t, token, { scope: "account", permissions: ["*"] });
		const response = await t.call("POST", "/auth/logout", { token: key });
		expect(response.status).toBe(422);
		expect(response.json.errors).toHaveProperty("authorization");
	});

	it("expires sessions after their lifetime with expired_api_key", async () => {
		const { token } = await register(t);
		t.clock.advance(30 * 24 * 3600 + 1);
		const response = await t.call("GET", "/auth/me", { token });
		expect(response.status).toBe(401);
		expect(response.json.error.code).toBe("expired_api_key");
	});
});
