import { createServer, type Server } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

/**
 * POST /v1/partners/{id}/validate names the issue INVALID_AS2_ID (interface spec, Partner
 * errors: "Validation checks of the partner validate endpoint use the issue names
 * INVALID_AS2_ID, …") for a partner whose AS2 id breaks the rule (Partner.as2_id: 1-50
 * characters; alphanumeric, hyphens, underscores; no spaces).
 *
 * The API cannot create such a partner: POST and PATCH of tenant partners and master partners
 * refuse it with 422 INVALID_AS2_ID_FORMAT, and an inherited partner's AS2 id cannot be
 * overridden. Such records exist all the same — written before the rule (an import, an older
 * version) — so they are written here through the store (`t.store.partners.update`) directly.
 * Everything else about the partner passes, so the AS2 id alone makes it invalid.
 */
let listener: Server;
let url: string;
let t: TestApp;
let owner: Awaited<ReturnType<typeof register>>;
let key: string;
let accountKey: string;

beforeAll(async () => {
	// The endpoint check opens a TCP connection (DNS + TCP): any local listener passes it.
	listener = createServer((socket) => socket.end());
	await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
	url = `https://127.0.0.1:${(listener.address() as { port: number }).port}/as2`;
});
afterAll(() => new Promise((resolve) => listener.close(resolve)));
beforeEach(async () => {
	// The partner endpoint is on loopback: the on-premise opt-in (AS2_ALLOW_PRIVATE_TARGETS=1).
	t = createTestApp({ allowPrivateTargets: true });
	owner = await register(t, "Validator");
	key = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "live",
		permissions: ["*"],
	});
	accountKey = await createKey(t, owner.token, { scope: "account", environment: "live", permissions: ["*"] });
});
afterEach(() => t.close());

interface Check {
	name: string;
	status: string;
	message: string;
	issue?: string;
}
const validate = async (id: string, token = key) => {
	const response = await t.call("POST", `/v1/partners/${id}/validate`, { token });
	expect(response.status).toBe(200);
	return response.json as { valid: boolean; checks: Check[] };
};
const statuses = (result: { checks: Check[] }) => result.checks.map((c) => [c.name, c.status, c.issue ?? null]);

describe("POST /v1/partners/{id}/validate and the AS2 id", () => {
	it("passes every check for a partner with a valid AS2 id (the control)", async () => {
		const created = await t.call("POST", "/v1/partners", {
			token: key,
			body: { name: "Legacy", as2_id: "LEGACY-ID_1", url },
		});
		expect(created.status).toBe(201);
		const result = await validate(created.json.data.id);
		expect(statuses(result)).toEqual([
			["as2_id_format", "pass", null],
			["endpoint_accessibility", "pass", null],
			["certificate_validity", "pass", null],
			["algorithm_compatibility", "pass", null],
		]);
		expect(result.valid).toBe(true);
	});

	it.each([
		["a space", "LEGACY ID"],
		["51 characters", "L".repeat(51)],
		["a dot and an @", "legacy@edi.example"],
		["a quoted id (RFC 4130 §6.2 allows it, the spec does not)", '"LEGACY"'],
	])("reports INVALID_AS2_ID (and valid false) for a tenant partner stored with %s", async (_, as2Id) => {
		const created = await t.call("POST", "/v1/partners", {
			token: key,
			body: { name: "Legacy", as2_id: "LEGACY", url },
		});
		// The API refuses this id…
		const refused = await t.call("PATCH", `/v1/partners/${created.json.data.id}`, {
			token: key,
			body: { as2_id: as2Id },
		});
		expect(refused.status).toBe(422);
		expect(refused.json.error.code).toBe("INVALID_AS2_ID_FORMAT");
		// …so the pre-rule record is written through the store.
		const stored = await t.store.partners.update(created.json.data.id, { as2Id, updatedAt: t.clock.now() });
		expect(stored?.as2Id).toBe(as2Id);
		const result = await validate(created.json.data.id);
		expect(result.valid).toBe(false);
		expect(statuses(result)).toEqual([
			["as2_id_format", "fail", "INVALID_AS2_ID"],
			["endpoint_accessibility", "pass", null],
			["certificate_validity", "pass", null],
			["algorithm_compatibility", "pass", null],
		]);
		expect(result.checks[0]!.message).toEqual(expect.any(String));
	});

	it("reports INVALID_AS2_ID for an inherited master partner stored with an invalid AS2 id", async () => {
		const master = await t.call("POST", `/v1/accounts/${owner.accountId}/partners`, {
			token: accountKey,
			body: { name: "Old Hub", as2_id: "OLD-HUB", url },
		});
		expect(master.status).toBe(201);
		const id = master.json.data.id as string;
		expect(id).toMatch(/^prt_master_\d+$/);
		expect((await validate(id)).valid).toBe(true);
		// The master's AS2 id is fixed through the API; the pre-rule record is written through the store.
		await t.store.partners.update(id, { as2Id: "OLD HUB", updatedAt: t.clock.now() });
		// A tenant key sees the inherited partner read-only, and may validate it.
		const result = await validate(id);
		expect(result.valid).toBe(false);
		expect(result.checks.find((c) => c.name === "as2_id_format")).toMatchObject({
			status: "fail",
			issue: "INVALID_AS2_ID",
		});
		expect(result.checks.filter((c) => c.status === "fail")).toHaveLength(1);
	});
});
