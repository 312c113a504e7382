import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
let owner: Awaited<ReturnType<typeof register>>;
let key: string;
beforeEach(async () => {
	t = createTestApp();
	owner = await register(t, "Partnerco");
	key = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "live",
		permissions: ["partners:write", "certificates:write"],
	});
});
afterEach(() => t.close());

const acme = (overrides: Record<string, unknown> = {}) => ({
	name: "Acme Supply",
	as2_id: "ACME-SUPPLY",
	url: "https://as2.acme.example/receive",
	...overrides,
});

const create = (body: Record<string, unknown>, token = key) => t.call("POST", "/v1/partners", { token, body });

describe("POST /v1/partners", () => {
	it("creates an active tenant partner with the spec's defaults and emits partner.created", async () => {
		const response = await create(acme());
		expect(response.status).toBe(201);
		expect(response.json).toEqual({
			message: expect.any(String),
			data: {
				id: "prt_000001",
				name: "Acme Supply",
				as2_id: "ACME-SUPPLY",
				url: "https://as2.acme.example/receive",
				active: true,
				type: "tenant",
				master_partner_id: null,
				has_overrides: false,
				sign: false,
				encrypt: false,
				compress: false,
				mdn_mode: "async",
				sign_algorithm: null,
				encrypt_algorithm: null,
				deactivated_at: null,
				created_at: "2026-03-01T09:00:00.000000Z",
				updated_at: "2026-03-01T09:00:00.000000Z",
			},
		});
		const [event] = await t.store.events.list({ accountId: owner.accountId, kind: "partner.created" });
		expect(event).toMatchObject({
			tenantId: owner.tenantId,
			data: {
				id: "prt_000001",
				name: "Acme Supply",
				as2_id: "ACME-SUPPLY",
				url: "https://as2.acme.example/receive",
				active: true,
			},
		});
		expect(Object.keys(event!.data).sort()).toEqual(["active", "as2_id", "created_at", "id", "name", "url"]);
	});

	it.each([
		["a taken AS2 id", () => create(acme()).then(() => create(acme({ name: "Other" }))), "as2_id", "DUPLICATE_AS2_ID"],
		["spaces in the AS2 id", () => create(acme({ as2_id: "ACME SUPPLY" })), "as2_id", "INVALID_AS2_ID_FORMAT"],
		["an AS2 id over 50 characters", () => create(acme({ as2_id: "A".repeat(51) })), "as2_id", "INVALID_AS2_ID_FORMAT"],
		["an http URL", () => create(acme({ url: "http://as2.acme.example/receive" })), "url", "INVALID_ENDPOINT_URL"],
		["a malformed URL", () => create(acme({ url: "not a url" })), "url", "INVALID_ENDPOINT_URL"],
		["an ftp URL", () => create(acme({ url: "ftp://acme.example/x" })), "url", "INVALID_ENDPOINT_URL"],
		[
			"an unknown sign algorithm",
			() => create(acme({ sign_algorithm: "MD5withRSA" })),
			"sign_algorithm",
			"UNSUPPORTED_ALGORITHM",
		],
		[
			"an unknown encrypt algorithm",
			() => create(acme({ encrypt_algorithm: "DES" })),
			"encrypt_algorithm",
			"UNSUPPORTED_ALGORITHM",
		],
		["a missing name", () => create({ as2_id: "X", url: "https://x.example" }), "name", "VALIDATION_FAILED"],
		["a wrong mdn_mode", () => create(acme({ mdn_mode: "later" })), "mdn_mode", "VALIDATION_FAILED"],
	])("refuses %s with 422 %s", async (_, act, field, code) => {
		const response = await act();
		expect(response.status).toBe(422);
		expect(response.json.error.code).toBe(code);
		expect(response.json.errors).toHaveProperty(field);
	});

	it("accepts http URLs when AS2_ALLOW_HTTP=1", async () => {
		const open = createTestApp({ allowHttp: true });
		try {
			const o = await register(open);
			const response = await open.call("POST", "/v1/partners", {
				token: o.token,
				body: acme({ url: "http://as2.partner.example:8080/as2" }),
			});
			expect(response.status).toBe(201);
		} finally {
			await open.close();
		}
	});

	it("stops at the Free plan's 5 partners with 402 PARTNER_LIMIT_EXCEEDED and its details", async () => {
		for (let i = 1; i <= 5; i++) expect((await create(acme({ as2_id: `P${i}` }))).status).toBe(201);
		const sixth = await create(acme({ as2_id: "P6" }));
		expect(sixth.status).toBe(402);
		expect(sixth.json.error).toEqual({
			type: "billing_error",
			code: "PARTNER_LIMIT_EXCEEDED",
			message: expect.any(String),
			details: { current_partners: 5, plan_limit: 5, plan: "free", upgrade_url: "/v1/account" },
		});
	});

	it("is idempotent with an Idempotency-Key", async () => {
		const headers = { "idempotency-key": "7d444840-9dc0-41a1-8bc0-3e9a6b6f3a11" };
		const first = await t.call("POST", "/v1/partners", { token: key, body: acme(), headers });
		const again = await t.call("POST", "/v1/partners", { token: key, body: acme(), headers });
		expect(again.text).toBe(first.text);
		expect((await t.call("GET", "/v1/partners", { token: key })).json.pagination.total).toBe(1);
	});
});

describe("reading partners", () => {
	it("lists with search, active and type filters and pagination", async () => {
		await create(acme({ name: "Acme Supply", as2_id: "ACME" }));
		await create(acme({ name: "Globex", as2_id: "GLOBEX" }));
		await create(acme({ name: "Initech", as2_id: "INITECH" }));
		await t.call("POST", "/v1/partners/prt_000002/deactivate", { token: key });
		const ids = async (q: string) =>
			(await t.call("GET", `/v1/partners${q}`, { token: key })).json.data.map((p: { id: string }) => p.id);
		expect(await ids("")).toEqual(["prt_000001", "prt_000002", "prt_000003"]);
		expect(await ids("?search=glob")).toEqual(["prt_000002"]);
		expect(await ids("?search=initech")).toEqual(["prt_000003"]);
		expect(await ids("?active=false")).toEqual(["prt_000002"]);
		expect(await ids("?active=true&type=tenant")).toEqual(["prt_000001", "prt_000003"]);
		expect(await ids("?type=inherited")).toEqual([]);
		const page = await t.call("GET", "/v1/partners?per_page=2&page=2", { token: key });
		expect(page.json.pagination).toEqual({ current_page: 2, last_page: 2, per_page: 2, total: 3, from: 3, to: 3 });
		for (const bad of ["search=", "active=maybe", "type=mine"]) {
			expect((await t.call("GET", `/v1/partners?${bad}`, { token: key })).status).toBe(422);
		}
	});

	it("shows the detail with certificates, message statistics and connection status", async () => {
		await create(acme());
		const detail = await t.call("GET", "/v1/partners/prt_000001", { token: key });
		expect(detail.status).toBe(200);
		expect(detail.json.data).toMatchObject({
			id: "prt_000001",
			certificates: [],
			message_stats: { total_sent: 0, total_received: 0, success_rate: null, last_message_at: null },
			last_message_at: null,
			connection_status: { last_test: null, last_test_result: null, response_time_ms: null },
		});
		expect(detail.json.data).not.toHaveProperty("override_settings");
		expect((await t.call("GET", "/v1/partners/prt_999999", { token: key })).json.error.code).toBe("PARTNER_NOT_FOUND");
	});
});

describe("changing partners", () => {
	it("PATCH changes only the supplied fields and emits partner.updated", async () => {
		await create(acme({ sign: true, sign_algorithm: "SHA256withRSA" }));
		t.clock.advance(10);
		const response = await t.call("PATCH", "/v1/partners/prt_000001", {
			token: key,
			body: { encrypt: true, encrypt_algorithm: "AES256_CBC" },
		});
		expect(response.status).toBe(200);
		expect(response.json.data).toMatchObject({
			name: "Acme Supply",
			sign: true,
			sign_algorithm: "SHA256withRSA",
			encrypt: true,
			encrypt_algorithm: "AES256_CBC",
			updated_at: "2026-03-01T09:00:10.000000Z",
		});
		const [event] = await t.store.events.list({ accountId: owner.accountId, kind: "partner.updated" });
		expect(event?.data).toMatchObject({ id: "prt_000001", encrypt: true });
		const dup = await create(acme({ as2_id: "OTHER" }));
		expect(dup.status).toBe(201);
		const clash = await t.call("PATCH", "/v1/partners/prt_000002", { token: key, body: { as2_id: "ACME-SUPPLY" } });
		expect(clash.json.error.code).toBe("DUPLICATE_AS2_ID");
	});

	it("reads and writes the nested configuration; the HTTP password is never shown", async () => {
		await create(acme());
		const patch = {
			mdn: { mode: "sync", signed: true, algorithm: "sha384", url: "https://me.example/as2/receive" },
			connection: { timeout_seconds: 45, retry_attempts: 3, retry_interval_seconds: 600 },
			http: { auth: { username: "acme", password: "s3cret-pw" }, headers: { "X-Gateway-Key": "abc" } },
			tls: { pinned_certificate_sha256: `SHA256:${"AB:".repeat(31)}AB` },
			compatibility: {
				signed_attributes: false,
				algorithm_protection: false,
				transfer_encoding: "base64",
				compress_order: "after-sign",
				key_encryption: "oaep",
				chunked: true,
			},
			inbound: { require_signed: true, require_encrypted: false },
			security: { sign: true, encrypt: true, sign_algorithm: "SHA512withRSA", encrypt_algorithm: "AES128_CBC" },
		};
		const patched = await t.call("PATCH", "/v1/partners/prt_000001", { token: key, body: patch });
		expect(patched.status).toBe(200);
		expect(patched.text).not.toContain("s3cret-pw");
		const config = await t.call("GET", "/v1/partners/prt_000001/configuration", { token: key });
		expect(config.status).toBe(200);
		expect(config.text).not.toContain("s3cret-pw");
		expect(config.json.data).toEqual({
			security: {
				sign: true,
				encrypt: true,
				compress: false,
				sign_algorithm: "SHA512withRSA",
				encrypt_algorithm: "AES128_CBC",
			},
			mdn: { mode: "sync", url: "https://me.example/as2/receive", signed: true, algorithm: "sha384" },
			connection: { timeout_seconds: 45, retry_attempts: 3, retry_interval_seconds: 600 },
			certificates: [],
			statistics: { messages_sent: 0, messages_received: 0, success_rate: null, last_activity: null },
			http: { auth: { username: "acme", password_set: true }, headers: { "X-Gateway-Key": "abc" } },
			tls: { ca_certificate: null, pinned_certificate_sha256: "ab".repeat(32) },
			compatibility: {
				signed_attributes: false,
				algorithm_protection: false,
				transfer_encoding: "base64",
				compress_order: "after-sign",
				key_encryption: "oaep",
				chunked: true,
			},
			inbound: { require_signed: true, require_encrypted: false },
		});
		const stored = await t.store.partners.getForTenant(owner.tenantId, "prt_000001");
		expect(stored?.settings.auth?.passwordSealed).toMatch(/^v1\./);
		expect(JSON.stringify(stored)).not.toContain("s3cret-pw");
	});

	it.each([
		[{ http: { headers: { "Content-Type": "text/plain" } } }, "http.headers"],
		[{ http: { headers: { "Bad Header": "x" } } }, "http.headers"],
		[{ tls: { ca_certificate: "not a certificate" } }, "tls.ca_certificate"],
		[{ tls: { pinned_certificate_sha256: "abc" } }, "tls.pinned_certificate_sha256"],
		[{ connection: { timeout_seconds: 0 } }, "connection.timeout_seconds"],
		[{ mdn: { algorithm: "md5" } }, "mdn.algorithm"],
		[{ mdn: { url: "ftp://x" } }, "mdn.url"],
	])("refuses a bad configuration value %j", async (body, field) => {
		await create(acme());
		const response = await t.call("PATCH", "/v1/partners/prt_000001", { token: key, body });
		expect(response.status).toBe(422);
		expect(response.json.errors).toHaveProperty(field);
	});

	it("deactivates (deactivated_at) and activates", async () => {
		await create(acme());
		t.clock.advance(5);
		const off = await t.call("POST", "/v1/partners/prt_000001/deactivate", { token: key });
		expect(off.json).toEqual({
			message: expect.any(String),
			data: { id: "prt_000001", active: false, deactivated_at: "2026-03-01T09:00:05.000000Z" },
		});
		expect((await t.call("GET", "/v1/partners/prt_000001", { token: key })).json.data).toMatchObject({
			active: false,
			deactivated_at: "2026-03-01T09:00:05.000000Z",
		});
		const on = await t.call("POST", "/v1/partners/prt_000001/activate", { token: key });
		expect(on.json.data).toEqual({ id: "prt_000001", active: true, activated_at: "2026-03-01T09:00:05.000000Z" });
		expect((await t.call("GET", "/v1/partners/prt_000001", { token: key })).json.data.deactivated_at).toBeNull();
	});

	it("deletes: certificates become inactive, the partner is gone (404 PARTNER_NOT_FOUND), partner.deleted", async () => {
		await create(acme());
		const pem = (await import("../helpers/certs.ts")).makeCertificates().selfSigned("acme").certPem;
		const uploaded = await t.call("POST", "/v1/partners/prt_000001/certificates", {
			token: key,
			body: { name: "acme", usage: "both", certificate: pem },
		});
		expect(uploaded.status).toBe(201);
		const deleted = await t.call("DELETE", "/v1/partners/prt_000001", { token: key });
		expect(deleted.json).toEqual({
			message: expect.any(String),
			data: { id: "prt_000001", deleted_at: "2026-03-01T09:00:00.000000Z" },
		});
		const gone = await t.call("GET", "/v1/partners/prt_000001", { token: key });
		expect(gone.status).toBe(404);
		expect(gone.json.error.code).toBe("PARTNER_NOT_FOUND");
		expect((await t.call("DELETE", "/v1/partners/prt_000001", { token: key })).status).toBe(404);
		const certificate = await t.call("GET", `/v1/certificates/${uploaded.json.data.id}`, { token: key });
		expect(certificate.json.data.active).toBe(false);
		expect((await t.store.events.list({ accountId: owner.accountId, kind: "partner.deleted" }))[0]?.data).toMatchObject(
			{ id: "prt_000001" },
		);
		expect((await create(acme())).status).toBe(201);
	});

	it("needs partners:write to change and partners:read to see", async () => {
		const reader = await createKey(t, owner.token, {
			scope: "tenant",
			tenant_id: owner.tenantId,
			permissions: ["partners:read"],
		});
		const nobody = await createKey(t, owner.token, {
			scope: "tenant",
			tenant_id: owner.tenantId,
			permissions: ["messages:read"],
		});
		await create(acme());
		expect((await create(acme({ as2_id: "X" }), reader)).status).toBe(403);
		expect((await t.call("GET", "/v1/partners", { token: reader })).status).toBe(200);
		expect((await t.call("GET", "/v1/partners", { token: nobody })).json.error.code).toBe("insufficient_scope");
	});
});
