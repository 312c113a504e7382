import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCertificates } from "../helpers/certs.ts";
import { bytesStream, storeMessage } from "../helpers/messages.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

/**
 * Tenant isolation over every endpoint that exists: the operations come from the OpenAPI
 * document, so an endpoint added later is covered (or fails here until its path parameters
 * and a sample body are known). Another account's keys and another tenant's key must see
 * A's resources exactly as missing ones (404) or be refused (403), and no response may carry
 * an identifier of A's.
 */
let t: TestApp;
const a: Record<string, string> = {};
const b: Record<string, string> = {};

/** A's resources by path parameter name. */
const resourceOfA = (param: string): string | undefined =>
	({
		tenant_id: a.secondTenant,
		key_id: a.keyId,
		partner_id: a.partner,
		cert_id: a.certificate,
		account_id: a.account,
		webhook_id: a.webhookId,
		delivery_id: a.deliveryId,
		message_id: a.message,
		// An attempt of A's message: an ordinal, not an id of its own (GET …/attempts/{number}/request).
		number: "1",
	})[param];

/** Request bodies valid enough to get past validation, by "METHOD path". */
const PARTNER = { name: "Probe", as2_id: "PROBE", url: "https://probe.example/as2" };
const SAMPLE_BODIES: Record<string, unknown> = {
	"POST /v1/partners/{partner_id}/certificates": {
		name: "x",
		usage: "both",
		certificate: "-----BEGIN CERTIFICATE-----",
	},
	"POST /v1/partners/{partner_id}/test": { test_type: "ping" },
	"POST /v1/accounts/{account_id}/partners": PARTNER,
	"POST /v1/partners": PARTNER,
	"POST /v1/tenants": { name: "Probe tenant" },
	"POST /v1/api-keys": { name: "probe", scopes: ["messages:read"] },
	"POST /v1/certificates": { name: "x", type: "partner", usage: "both", certificate: "x" },
	"POST /v1/epcis/validate": { document: "<x/>" },
	"POST /v1/epcis/query": { query_type: "SimpleEventQuery", parameters: {} },
};

type Operation = { method: string; path: string; operationId: string; hasBody: boolean; public: boolean };

beforeAll(async () => {
	// Enterprise: unlimited requests, so the sweep measures isolation, not rate limits.
	t = createTestApp({ defaultPlan: "enterprise" });
	const ownerA = await register(t, "Alpha");
	const second = await t.call("POST", "/v1/tenants", { token: ownerA.token, body: { name: "Alpha Two" } });
	a.secondTenant = second.json.data.id;
	a.accountKey = await createKey(t, ownerA.token, { scope: "account", permissions: ["*"] });
	a.keyId = (await t.call("GET", "/v1/api-keys", { token: ownerA.token })).json.data[0].id;
	a.tenantKeyOfFirst = await createKey(t, ownerA.token, {
		scope: "tenant",
		tenant_id: ownerA.tenantId,
		permissions: ["*"],
	});
	a.firstTenant = ownerA.tenantId;
	a.account = (await t.call("GET", "/v1/account", { token: ownerA.token })).json.data.id;
	// A's partner and certificate live in A's second tenant, so A's first-tenant key must not see them either.
	const inSecond = { token: a.accountKey!, headers: { "x-tenant-id": a.secondTenant! } };
	const partner = { name: "Alpha partner", as2_id: "ALPHA-P", url: "https://alpha-p.example/as2" };
	a.partner = (await t.call("POST", "/v1/partners", { ...inSecond, body: partner })).json.data.id;
	const hub = { name: "Alpha hub", as2_id: "ALPHA-HUB", url: "https://hub.example/as2" };
	a.master = (
		await t.call("POST", `/v1/accounts/${a.account}/partners`, { token: ownerA.token, body: hub })
	).json.data.id;
	const pem = makeCertificates().selfSigned("alpha-partner").certPem;
	const upload = { name: "c", usage: "both", certificate: pem };
	a.certificate = (
		await t.call("POST", `/v1/partners/${a.partner}/certificates`, { ...inSecond, body: upload })
	).json.data.id;
	const endpoint = await t.call("POST", "/v1/webhook-endpoints", {
		...inSecond,
		body: { url: "https://hooks.example.com/alpha", events: ["*"] },
	});
	a.webhookId = endpoint.json.data.id;
	a.deliveryId = await t.store.ids.next("whd_");
	await t.store.webhookDeliveries.create({
		id: a.deliveryId,
		accountId: ownerA.accountId,
		tenantId: a.secondTenant!,
		endpointId: a.webhookId!,
		eventId: null,
		eventKind: "webhook.test",
		orderingKey: null,
		body: "{}",
		status: "failed",
		attempts: 1,
		nextAttemptAt: null,
		lastAttemptAt: null,
		lastResponseStatus: 500,
		lastError: "HTTP 500",
		lockedBy: null,
		lockedUntil: null,
		createdAt: t.clock.now(),
		updatedAt: t.clock.now(),
	});
	// A's message, with a stored payload, also lives in A's second tenant (the pipeline is not needed to read one).
	await t.service.deps.blobs.put("payloads/alpha", bytesStream(new TextEncoder().encode("alpha payload")));
	a.message = (
		await storeMessage(t, { accountId: a.account!, tenantId: a.secondTenant! }, { payloadKey: "payloads/alpha" })
	).id;
	const ownerB = await register(t, "Beta");
	b.accountKey = await createKey(t, ownerB.token, { scope: "account", environment: "live", permissions: ["*"] });
	b.tenantKey = await createKey(t, ownerB.token, { scope: "tenant", tenant_id: ownerB.tenantId, permissions: ["*"] });
});
afterAll(() => t.close());

async function operations(): Promise<Operation[]> {
	const doc = (await t.call("GET", "/openapi.json")).json as {
		paths: Record<string, Record<string, { operationId: string; requestBody?: unknown; security?: unknown[] }>>;
	};
	return Object.entries(doc.paths).flatMap(([path, methods]) =>
		Object.entries(methods).map(([method, op]) => ({
			method: method.toUpperCase(),
			path,
			operationId: op.operationId,
			hasBody: op.requestBody !== undefined,
			public: Array.isArray(op.security) && op.security.length === 0,
		})),
	);
}

function fill(path: string): string {
	return path.replace(/\{(\w+)\}/g, (_, param: string) => {
		const id = resourceOfA(param);
		if (!id) throw new Error(`isolation.test.ts: no resource of tenant A for path parameter {${param}}; add one`);
		return id;
	});
}

/** A's identifiers that B must never see (B's own ids are other numbers of the same sequences). */
const idsOfA = () =>
	[
		a.firstTenant,
		a.secondTenant,
		a.keyId,
		a.partner,
		a.master,
		a.certificate,
		a.account,
		a.webhookId,
		a.deliveryId,
		a.message,
	].filter(Boolean) as string[];

describe("tenant isolation on every endpoint", () => {
	it("covers at least the platform's endpoints", async () => {
		const ops = await operations();
		expect(ops.length).toBeGreaterThanOrEqual(10);
	});

	it("answers another account's keys with 404 or 403 for A's resources, leaking nothing", async () => {
		for (const op of (await operations()).filter((o) => !o.public)) {
			const isParameterized = op.path.includes("{");
			for (const [who, token] of [
				["B's account key", b.accountKey],
				["B's tenant key", b.tenantKey],
			] as const) {
				const body = op.hasBody ? (SAMPLE_BODIES[`${op.method} ${op.path}`] ?? {}) : undefined;
				const path = fill(op.path);
				const response = await t.call(op.method, path, { token, body });
				const label = `${who}: ${op.method} ${op.path} → ${response.status} ${response.text.slice(0, 200)}`;
				if (isParameterized) expect([403, 404], label).toContain(response.status);
				else expect(response.status, label).toBeLessThan(500);
				// An id B itself sent may be echoed in the error; any other id of A's is a leak.
				for (const id of idsOfA().filter((x) => !path.includes(x))) expect(response.text, label).not.toContain(id);
			}
		}
	});

	it("answers 404 to X-Tenant-ID naming A's tenant, on every endpoint", async () => {
		for (const op of (await operations()).filter((o) => !o.public && o.path.startsWith("/v1/"))) {
			const response = await t.call(op.method, op.path.includes("{") ? fill(op.path) : op.path, {
				token: b.accountKey,
				headers: { "x-tenant-id": a.secondTenant! },
				body: op.hasBody ? {} : undefined,
			});
			expect(response.status, `${op.method} ${op.path}`).toBe(404);
		}
	});

	it("keeps A's first-tenant key out of A's second tenant's resources", async () => {
		for (const op of (await operations()).filter((o) => !o.public && o.path.includes("{"))) {
			const response = await t.call(op.method, fill(op.path), {
				token: a.tenantKeyOfFirst,
				body: op.hasBody ? (SAMPLE_BODIES[`${op.method} ${op.path}`] ?? {}) : undefined,
			});
			expect([403, 404], `${op.method} ${op.path}`).toContain(response.status);
		}
	});
});
