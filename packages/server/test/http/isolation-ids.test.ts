import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCertificates } from "../helpers/certs.ts";
import { createKey, createTestApp, register, type TestApp, type TestResponse } from "../helpers/test-app.ts";

/**
 * Tenant isolation of identifiers that travel in request bodies and query strings (the sweep
 * of isolation.test.ts covers path parameters): another account naming A's partner,
 * master partner or tenant must get exactly the answer it gets for an id that never existed
 * (decisions.md, Errors: "a resource of another tenant is indistinguishable from a missing
 * one"), and nothing of A's may change or show.
 */
let t: TestApp;
const a = {} as {
	account: string;
	tenant: string;
	key: string;
	partner: string;
	master: string;
	partnerCertificate: string;
	masterCertificate: string;
	messages: string[];
};
const b = {} as { account: string; accountKey: string; tenantKey: string; partner: string; message: string };
/** Ids of the right shape that exist nowhere. */
const MISSING = { partner: "prt_999999", master: "prt_master_999999", tenant: "tnt_999999" };
const pem = () => makeCertificates().selfSigned("isolation-probe").certPem;

beforeAll(async () => {
	t = createTestApp({ defaultPlan: "enterprise" });
	const ownerA = await register(t, "Alpha");
	a.account = ownerA.accountId;
	a.tenant = ownerA.tenantId;
	a.key = await createKey(t, ownerA.token, { scope: "account", environment: "test", permissions: ["*"] });
	const partner = { name: "Alpha Secret Partner", as2_id: "ALPHA-SECRET", url: "https://alpha-secret.example/as2" };
	a.partner = (await t.call("POST", "/v1/partners", { token: a.key, body: partner })).json.data.id;
	const hub = { name: "Alpha Secret Hub", as2_id: "ALPHA-HUB", url: "https://alpha-hub.example/as2" };
	a.master = (await t.call("POST", `/v1/accounts/${a.account}/partners`, { token: a.key, body: hub })).json.data.id;
	const upload = (partner_id: string) =>
		t.call("POST", "/v1/certificates", {
			token: a.key,
			body: { name: "alpha cert", type: "partner", usage: "both", partner_id, certificate: pem() },
		});
	a.partnerCertificate = (await upload(a.partner)).json.data.id;
	a.masterCertificate = (await upload(a.master)).json.data.id;
	// Test-environment messages to both partners (no worker runs, so they stay queued).
	a.messages = [];
	for (const partner_id of [a.partner, a.master]) {
		const sent = await t.call("POST", "/v1/messages", {
			token: a.key,
			body: { partner_id, content_type: "text/plain", subject: "alpha secret", payload: { content: "alpha" } },
		});
		expect(sent.status, sent.text).toBe(202);
		a.messages.push(sent.json.data.id);
	}

	const ownerB = await register(t, "Beta");
	b.account = ownerB.accountId;
	b.accountKey = await createKey(t, ownerB.token, { scope: "account", environment: "test", permissions: ["*"] });
	b.tenantKey = await createKey(t, ownerB.token, {
		scope: "tenant",
		tenant_id: ownerB.tenantId,
		environment: "test",
		permissions: ["*"],
	});
	// B has data of its own, so an unfiltered answer would not be empty.
	const own = { name: "Beta partner", as2_id: "BETA-P", url: "https://beta-p.example/as2" };
	b.partner = (await t.call("POST", "/v1/partners", { token: b.tenantKey, body: own })).json.data.id;
	b.message = (
		await t.call("POST", "/v1/messages", {
			token: b.tenantKey,
			body: { partner_id: b.partner, content_type: "text/plain", payload: { content: "beta" } },
		})
	).json.data.id;
});
afterAll(() => t.close());

const keysOfB = () =>
	[
		["B's account key", b.accountKey],
		["B's tenant key", b.tenantKey],
	] as const;

/** Everything of A's that must never reach B: ids, names, AS2 ids, subjects. */
const secretsOfA = () => [
	a.partner,
	a.master,
	a.tenant,
	a.account,
	a.partnerCertificate,
	a.masterCertificate,
	...a.messages,
	"Alpha Secret",
	"ALPHA-SECRET",
	"ALPHA-HUB",
	"alpha secret",
];

/**
 * B's answer for A's id is the answer for an id that never existed (the id itself, which B
 * sent, may be echoed), and it carries nothing else of A's.
 */
function expectIndistinguishable(
	label: string,
	withA: TestResponse,
	withMissing: TestResponse,
	idOfA: string,
	missing: string,
) {
	expect(withA.status, `${label}: ${withA.text}`).toBe(withMissing.status);
	expect(withA.text.replaceAll(idOfA, missing), label).toBe(withMissing.text);
	for (const secret of secretsOfA().filter((s) => s !== idOfA)) expect(withA.text, label).not.toContain(secret);
}

describe("another account's ids in request bodies", () => {
	it("POST /v1/messages to A's partner or A's master partner: 404 PARTNER_NOT_FOUND, nothing sent", async () => {
		for (const [who, token] of keysOfB()) {
			for (const [idOfA, missing] of [
				[a.partner, MISSING.partner],
				[a.master, MISSING.master],
			] as const) {
				const send = (partner_id: string) =>
					t.call("POST", "/v1/messages", {
						token,
						body: { partner_id, content_type: "text/plain", payload: { content: "probe" } },
					});
				const withA = await send(idOfA);
				expect(withA.status, withA.text).toBe(404);
				expect(withA.json.error).toMatchObject({ type: "resource_error", code: "PARTNER_NOT_FOUND" });
				expectIndistinguishable(`${who}: POST /v1/messages ${idOfA}`, withA, await send(missing), idOfA, missing);
			}
		}
		// Neither account gained a message: A still has its two, B its one.
		const listA = await t.call("GET", "/v1/messages", { token: a.key });
		expect(listA.json.data.map((m: { id: string }) => m.id).sort()).toEqual([...a.messages].sort());
		const listB = await t.call("GET", "/v1/messages", { token: b.tenantKey });
		expect(listB.json.data.map((m: { id: string }) => m.id)).toEqual([b.message]);
	});

	it("POST /v1/certificates for A's partner or A's master partner: 404 PARTNER_NOT_FOUND, nothing stored", async () => {
		const certificate = pem();
		for (const [who, token] of keysOfB()) {
			for (const [idOfA, missing] of [
				[a.partner, MISSING.partner],
				[a.master, MISSING.master],
			] as const) {
				const upload = (partner_id: string) =>
					t.call("POST", "/v1/certificates", {
						token,
						body: { name: "probe", type: "partner", usage: "both", partner_id, certificate },
					});
				const withA = await upload(idOfA);
				expect(withA.status, withA.text).toBe(404);
				expect(withA.json.error).toMatchObject({ type: "resource_error", code: "PARTNER_NOT_FOUND" });
				expectIndistinguishable(`${who}: POST /v1/certificates ${idOfA}`, withA, await upload(missing), idOfA, missing);
			}
		}
		for (const [partner, certificate] of [
			[a.partner, a.partnerCertificate],
			[a.master, a.masterCertificate],
		]) {
			const listed = await t.call("GET", `/v1/certificates?partner_id=${partner}`, { token: a.key });
			expect(listed.json.data.map((c: { id: string }) => c.id)).toEqual([certificate]);
		}
		const listB = await t.call("GET", "/v1/certificates?type=partner", { token: b.accountKey });
		expect(listB.json.data).toEqual([]);
	});

	it("POST /v1/api-keys naming A's tenant (tenant_id, allowed_tenant_ids) is refused as for a missing tenant", async () => {
		const bodies = [
			(tenant: string) => ({ name: "probe", scope: "tenant", tenant_id: tenant, permissions: ["*"] }),
			(tenant: string) => ({ name: "probe", scope: "account", allowed_tenant_ids: [tenant], permissions: ["*"] }),
		];
		for (const body of bodies) {
			const withA = await t.call("POST", "/v1/api-keys", { token: b.accountKey, body: body(a.tenant) });
			expect(withA.status, withA.text).toBe(422);
			const withMissing = await t.call("POST", "/v1/api-keys", { token: b.accountKey, body: body(MISSING.tenant) });
			expectIndistinguishable("POST /v1/api-keys", withA, withMissing, a.tenant, MISSING.tenant);
		}
	});
});

describe("another account's ids in query strings", () => {
	it("GET /v1/messages?partner_id=<A's> answers as for a missing partner: an empty page", async () => {
		for (const [who, token] of keysOfB()) {
			for (const [idOfA, missing] of [
				[a.partner, MISSING.partner],
				[a.master, MISSING.master],
			] as const) {
				const list = (partner: string) => t.call("GET", `/v1/messages?partner_id=${partner}`, { token });
				const withA = await list(idOfA);
				expect(withA.status, withA.text).toBe(200);
				expect(withA.json.data).toEqual([]);
				expect(withA.json.pagination.total).toBe(0);
				expectIndistinguishable(
					`${who}: GET /v1/messages?partner_id=${idOfA}`,
					withA,
					await list(missing),
					idOfA,
					missing,
				);
			}
		}
		// The filter is real: B's own partner finds B's message, A's finds A's for A.
		const own = await t.call("GET", `/v1/messages?partner_id=${b.partner}`, { token: b.tenantKey });
		expect(own.json.data.map((m: { id: string }) => m.id)).toEqual([b.message]);
		const ofA = await t.call("GET", `/v1/messages?partner_id=${a.partner}`, { token: a.key });
		expect(ofA.json.data.map((m: { id: string }) => m.id)).toEqual([a.messages[0]]);
	});

	it("GET /v1/certificates?partner_id=<A's> answers as for a missing partner: an empty page", async () => {
		for (const [who, token] of keysOfB()) {
			for (const [idOfA, missing] of [
				[a.partner, MISSING.partner],
				[a.master, MISSING.master],
			] as const) {
				const list = (partner: string) => t.call("GET", `/v1/certificates?partner_id=${partner}`, { token });
				const withA = await list(idOfA);
				expect(withA.status, withA.text).toBe(200);
				expect(withA.json.data).toEqual([]);
				expectIndistinguishable(
					`${who}: GET /v1/certificates?partner_id=${idOfA}`,
					withA,
					await list(missing),
					idOfA,
					missing,
				);
			}
		}
		const ofA = await t.call("GET", `/v1/certificates?partner_id=${a.master}`, { token: a.key });
		expect(ofA.json.data.map((c: { id: string }) => c.id)).toEqual([a.masterCertificate]);
	});
});

describe("another account's master partner id in paths", () => {
	it("answers every /v1/partners/{id} operation on A's master partner as for a missing one, changing nothing", async () => {
		const doc = (await t.call("GET", "/openapi.json")).json as {
			paths: Record<string, Record<string, { requestBody?: unknown }>>;
		};
		const operations = Object.entries(doc.paths)
			.filter(([path]) => path.startsWith("/v1/partners/{partner_id}"))
			.flatMap(([path, methods]) =>
				Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), path, body: op.requestBody })),
			);
		expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual(
			expect.arrayContaining([
				"GET /v1/partners/{partner_id}",
				"PATCH /v1/partners/{partner_id}",
				"DELETE /v1/partners/{partner_id}",
				"GET /v1/partners/{partner_id}/overrides",
				"DELETE /v1/partners/{partner_id}/overrides",
			]),
		);
		// Bodies that pass validation, so the answer is about the partner, not the body.
		const certificate = pem();
		const bodies: Record<string, unknown> = {
			"PATCH /v1/partners/{partner_id}": { name: "Hijacked", sign: true },
			"POST /v1/partners/{partner_id}/certificates": { name: "probe", usage: "both", certificate },
			"POST /v1/partners/{partner_id}/test": { test_type: "ping" },
		};
		const before = await t.call("GET", `/v1/partners/${a.master}`, { token: a.key });
		expect(before.status).toBe(200);
		for (const [who, token] of keysOfB()) {
			for (const op of operations) {
				const body = op.body ? (bodies[`${op.method} ${op.path}`] ?? {}) : undefined;
				const call = (id: string) => t.call(op.method, op.path.replace("{partner_id}", id), { token, body });
				const withA = await call(a.master);
				const label = `${who}: ${op.method} ${op.path} with ${a.master}`;
				expect(withA.status, `${label} → ${withA.text}`).toBe(404);
				expect(withA.json.error.type, label).toBe("resource_error");
				expectIndistinguishable(label, withA, await call(MISSING.master), a.master, MISSING.master);
			}
		}
		// B's own partner list never shows A's master partner as inherited.
		for (const [, token] of keysOfB()) {
			const list = await t.call("GET", "/v1/partners?type=all", { token });
			expect(list.json.data.map((p: { id: string }) => p.id)).toEqual([b.partner]);
		}
		const after = await t.call("GET", `/v1/partners/${a.master}`, { token: a.key });
		expect(after.json.data).toEqual(before.json.data);
	});

	it("answers B's master-partner endpoints for A's master partner id as for a missing one", async () => {
		for (const method of ["GET", "PATCH", "DELETE"]) {
			const call = (id: string) =>
				t.call(method, `/v1/accounts/${b.account}/partners/${id}`, {
					token: b.accountKey,
					body: method === "PATCH" ? { name: "Hijacked" } : undefined,
				});
			const withA = await call(a.master);
			expect(withA.status, `${method}: ${withA.text}`).toBe(404);
			expectIndistinguishable(`${method} master of A`, withA, await call(MISSING.master), a.master, MISSING.master);
		}
		const still = await t.call("GET", `/v1/accounts/${a.account}/partners/${a.master}`, { token: a.key });
		expect(still.json.data.name).toBe("Alpha Secret Hub");
	});
});
