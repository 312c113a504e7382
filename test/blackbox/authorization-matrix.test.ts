/**
 * The authorization matrix (issue #16), against the built server over real sockets: every
 * operation of its `/openapi.json` × every credential kind × every owner relation of the
 * object the request addresses, each answer checked against ONE table below that mirrors
 * README, "Who may do what". An operation of the document without a row fails the suite, so a
 * new endpoint cannot slip in unreviewed; a row without an operation fails it too.
 *
 * The relation: a request with a path parameter addresses an object of tenant A1 (own), A2
 * (sibling, same account) or B1 (another account), the credential working in A1; a request
 * without one addresses that tenant with `X-Tenant-ID` (own: no header).
 *
 * The server runs with `--role api` (no background worker: nothing a request causes runs
 * later, and no retry races another request), on the Enterprise plan (no rate limit between
 * the requests of account A), trusting `X-Forwarded-For` (each refused credential's request
 * names its own documentation address, so the per-address limit for failed authentication
 * does not bite), and every URL it may call points at a loopback sink (world module).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Operation, operationsOf, runBounded } from "./authorization-matrix-runner.ts";
import {
	bodyOfBodiless,
	buildWorld,
	type Credential,
	RELATION_ACCOUNT,
	RELATION_TENANT,
	type Relation,
	type TenantName,
	type World,
} from "./authorization-matrix-world.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call } from "./clients.ts";

type Reach = "tenant" | "account" | "whole-account";
type Rule =
	| { public: true }
	/** Any valid credential. */
	| { any: true }
	/** A session only (an API key gets 422: it is not logged out, it is revoked). */
	| { session: true }
	| { permission: string; reach: Reach };

/**
 * What a path parameter addresses, which decides the answer for each relation:
 * - `resource`: an object of a tenant (partner, certificate, message, webhook endpoint or
 *   delivery); found only in the tenant the credential works in (A1);
 * - `tenant`: a tenant, found if the credential reaches it;
 * - `key`: a test-environment tenant key, found if the credential reaches its tenant;
 * - `account`: the account or a master partner of it;
 * - `inherited`: a master partner as a tenant inherits it (its overrides): account
 *   credentials only, tenant keys 403.
 */
type Target = "resource" | "tenant" | "key" | "account" | "inherited";

interface Cell {
	world: World;
	relation: Relation;
	tenant: TenantName;
	serial: number;
}

interface Row {
	rule: Rule;
	/** The status of an allowed request. */
	ok?: number;
	target?: Target;
	/** A minimal valid body, so that the answer reflects authorization, not validation. */
	body?: (cell: Cell) => unknown;
	/** The body names an object of the addressed tenant: a tenant key (which ignores X-Tenant-ID) does not find another's. */
	namesObject?: true;
	/** An allowed request uses up its object (a DELETE, a logout): it gets a fresh one. */
	consumes?: (world: World, relation: Relation) => Promise<{ params?: Record<string, string>; token?: string }>;
}

const T = (permission: string): Rule => ({ permission, reach: "tenant" });
const A = (permission: string): Rule => ({ permission, reach: "account" });
const W = (permission: string): Rule => ({ permission, reach: "whole-account" });
const PUBLIC: Row = { rule: { public: true } };
const partnerBody = ({ world, serial }: Cell) => ({
	name: `Matrix partner ${serial}`,
	as2_id: `MATRIX-CELL-${process.pid}-${serial}`,
	url: `${world.sinkUrl}/as2`,
});

/** THE table: one row per operation (README, Who may do what). */
const TABLE: Record<string, Row> = {
	"POST /auth/register": PUBLIC,
	"POST /auth/login": PUBLIC,
	"POST /as2/receive": PUBLIC,
	"POST /as2/mdn": PUBLIC,
	"GET /auth/me": { rule: { any: true }, ok: 200 },
	"GET /v1/compatibility-profiles": { rule: { any: true }, ok: 200 },
	"POST /auth/logout": {
		rule: { session: true },
		ok: 200,
		consumes: async (w) => ({ token: await w.fresh.session() }),
	},

	"POST /v1/api-keys": { rule: T("*"), ok: 201, body: () => ({ name: "matrix key", scopes: ["messages:read"] }) },
	"GET /v1/api-keys": { rule: T("*"), ok: 200 },
	"DELETE /v1/api-keys/{key_id}": {
		rule: T("*"),
		ok: 200,
		target: "key",
		consumes: async (w, r) => ({ params: { key_id: await w.fresh.key(RELATION_TENANT[r]) } }),
	},

	"GET /v1/account": { rule: A("accounts:read"), ok: 200 },
	"GET /v1/account/usage": { rule: A("accounts:read"), ok: 200 },
	"PATCH /v1/account": { rule: W("accounts:write"), ok: 200, body: () => ({ name: "Matrix A renamed" }) },
	"GET /v1/tenants": { rule: A("tenants:read"), ok: 200 },
	"POST /v1/tenants": {
		rule: W("tenants:write"),
		ok: 201,
		body: ({ serial }) => ({ name: `Matrix tenant ${serial}` }),
	},
	"GET /v1/tenants/{tenant_id}": { rule: A("tenants:read"), ok: 200, target: "tenant" },
	"PATCH /v1/tenants/{tenant_id}": {
		rule: A("tenants:write"),
		ok: 200,
		target: "tenant",
		body: ({ serial }) => ({ name: `Matrix renamed ${serial}` }),
	},

	"GET /v1/partners": { rule: T("partners:read"), ok: 200 },
	"POST /v1/partners": { rule: T("partners:write"), ok: 201, body: partnerBody },
	"GET /v1/partners/{partner_id}": { rule: T("partners:read"), ok: 200, target: "resource" },
	"PATCH /v1/partners/{partner_id}": {
		rule: T("partners:write"),
		ok: 200,
		target: "resource",
		body: () => ({ name: "Matrix partner renamed" }),
	},
	"DELETE /v1/partners/{partner_id}": {
		rule: T("partners:write"),
		ok: 200,
		target: "resource",
		consumes: async (w, r) => ({ params: { partner_id: await w.fresh.partner(RELATION_TENANT[r]) } }),
	},
	"POST /v1/partners/{partner_id}/activate": { rule: T("partners:write"), ok: 200, target: "resource" },
	"POST /v1/partners/{partner_id}/deactivate": { rule: T("partners:write"), ok: 200, target: "resource" },
	"GET /v1/partners/{partner_id}/stats": { rule: T("partners:read"), ok: 200, target: "resource" },
	"GET /v1/partners/{partner_id}/configuration": { rule: T("partners:read"), ok: 200, target: "resource" },
	"GET /v1/partners/{partner_id}/overrides": { rule: T("partners:read"), ok: 200, target: "inherited" },
	"DELETE /v1/partners/{partner_id}/overrides": { rule: T("partners:write"), ok: 200, target: "inherited" },
	"GET /v1/partners/{partner_id}/certificates": { rule: T("certificates:read"), ok: 200, target: "resource" },
	"POST /v1/partners/{partner_id}/certificates": {
		rule: T("certificates:write"),
		ok: 201,
		target: "resource",
		body: ({ world }) => ({ name: "matrix", usage: "both", certificate: world.pem }),
	},
	"POST /v1/partners/{partner_id}/validate": { rule: T("partners:read"), ok: 200, target: "resource" },
	"POST /v1/partners/{partner_id}/test": {
		rule: T("partners:read"),
		ok: 200,
		target: "resource",
		body: () => ({ test_type: "ping" }),
	},

	"GET /v1/accounts/{account_id}/partners": { rule: A("partners:read"), ok: 200, target: "account" },
	"POST /v1/accounts/{account_id}/partners": {
		rule: W("partners:write"),
		ok: 201,
		target: "account",
		body: partnerBody,
	},
	"GET /v1/accounts/{account_id}/partners/{partner_id}": { rule: A("partners:read"), ok: 200, target: "account" },
	"PATCH /v1/accounts/{account_id}/partners/{partner_id}": {
		rule: W("partners:write"),
		ok: 200,
		target: "account",
		body: () => ({ name: "Matrix master renamed" }),
	},
	"DELETE /v1/accounts/{account_id}/partners/{partner_id}": {
		rule: W("partners:write"),
		ok: 200,
		target: "account",
		consumes: async (w, r) => ({ params: { partner_id: await w.fresh.master(RELATION_ACCOUNT[r]) } }),
	},

	"GET /v1/certificates": { rule: T("certificates:read"), ok: 200 },
	"POST /v1/certificates": {
		rule: T("certificates:write"),
		ok: 201,
		namesObject: true,
		body: ({ world, tenant }) => ({
			name: "matrix",
			type: "partner",
			usage: "both",
			partner_id: world.tenants[tenant].sendTo,
			certificate: world.pem,
		}),
	},
	"GET /v1/certificates/{cert_id}": { rule: T("certificates:read"), ok: 200, target: "resource" },
	"DELETE /v1/certificates/{cert_id}": {
		rule: T("certificates:write"),
		ok: 200,
		target: "resource",
		consumes: async (w, r) => ({ params: { cert_id: await w.fresh.certificate(RELATION_TENANT[r]) } }),
	},
	"POST /v1/certificates/{cert_id}/activate": { rule: T("certificates:write"), ok: 200, target: "resource" },
	"POST /v1/certificates/{cert_id}/deactivate": { rule: T("certificates:write"), ok: 200, target: "resource" },

	"POST /v1/messages": {
		rule: T("messages:write"),
		ok: 202,
		namesObject: true,
		body: ({ world, tenant }) => ({
			partner_id: world.tenants[tenant].sendTo,
			content_type: "text/plain",
			payload: { content: "matrix" },
			scheduled_at: new Date(Date.now() + 86_400_000).toISOString(),
		}),
	},
	"GET /v1/messages": { rule: T("messages:read"), ok: 200 },
	"GET /v1/messages/{message_id}": { rule: T("messages:read"), ok: 200, target: "resource" },
	"GET /v1/messages/{message_id}/payload": { rule: T("messages:read"), ok: 200, target: "resource" },
	"GET /v1/messages/{message_id}/timeline": { rule: T("messages:read"), ok: 200, target: "resource" },
	"GET /v1/messages/{message_id}/attempts": { rule: T("messages:read"), ok: 200, target: "resource" },
	// The matrix's server runs no worker: its message has no attempt, so a permitted download is
	// 404 (message-wire.test.ts downloads real captures).
	"GET /v1/messages/{message_id}/attempts/{number}/request": { rule: T("messages:read"), ok: 404, target: "resource" },
	"GET /v1/messages/{message_id}/attempts/{number}/response": { rule: T("messages:read"), ok: 404, target: "resource" },
	"GET /v1/messages/{message_id}/attempts/{number}/mdn": { rule: T("messages:read"), ok: 404, target: "resource" },
	"POST /v1/messages/{message_id}/retry": { rule: T("messages:write"), ok: 200, target: "resource" },
	"POST /v1/messages/{message_id}/cancel": {
		rule: T("messages:write"),
		ok: 200,
		target: "resource",
		consumes: async (w, r) => ({ params: { message_id: await w.fresh.message(RELATION_TENANT[r]) } }),
	},
	"POST /v1/messages/{message_id}/resend": {
		rule: T("messages:write"),
		ok: 202,
		target: "resource",
		consumes: async (w, r) => ({ params: { message_id: await w.fresh.cancelledMessage(RELATION_TENANT[r]) } }),
	},
	"POST /v1/epcis/validate": { rule: T("messages:read"), ok: 200, body: () => ({ document: "<matrix/>" }) },
	"POST /v1/epcis/query": {
		rule: T("messages:read"),
		ok: 200,
		body: () => ({ query_type: "SimpleEventQuery", parameters: {} }),
	},

	"POST /v1/webhook-endpoints": {
		rule: T("webhooks:write"),
		ok: 201,
		body: ({ world }) => ({ url: `${world.sinkUrl}/hook`, events: ["message.delivered"] }),
	},
	"GET /v1/webhook-endpoints": { rule: T("webhooks:read"), ok: 200 },
	"GET /v1/webhook-endpoints/{webhook_id}": { rule: T("webhooks:read"), ok: 200, target: "resource" },
	"PATCH /v1/webhook-endpoints/{webhook_id}": {
		rule: T("webhooks:write"),
		ok: 200,
		target: "resource",
		body: () => ({ events: ["message.delivered"] }),
	},
	"DELETE /v1/webhook-endpoints/{webhook_id}": {
		rule: T("webhooks:write"),
		ok: 200,
		target: "resource",
		consumes: async (w, r) => ({ params: { webhook_id: await w.fresh.webhook(RELATION_TENANT[r]) } }),
	},
	"POST /v1/webhook-endpoints/{webhook_id}/test": { rule: T("webhooks:write"), ok: 200, target: "resource" },
	"GET /v1/webhook-endpoints/{webhook_id}/deliveries": { rule: T("webhooks:read"), ok: 200, target: "resource" },
	"POST /v1/webhook-endpoints/{webhook_id}/deliveries/{delivery_id}/retry": {
		rule: T("webhooks:write"),
		ok: 202,
		target: "resource",
	},
	"GET /v1/webhook-endpoints-stats": { rule: T("webhooks:read"), ok: 200 },
};

interface Expected {
	status: number;
	/** `error.code` for 401 and 403, `error.type` for 404. */
	code?: string;
	type?: string;
	/** Refused before the body is read: such a request is sent with an invalid body, which must not matter. */
	early?: true;
}

const NOT_FOUND: Expected = { status: 404, type: "resource_error" };
const FORBIDDEN: Expected = { status: 403, code: "insufficient_scope" };
const early = (refusal: Expected): Expected => ({ ...refusal, early: true });

/** `x:write` includes `x:read`; `*` is every permission; account permissions need an account credential. */
function grants(credential: Credential, permission: string): boolean {
	const account = /^(accounts|tenants|users|billing):/.test(permission);
	if (account && credential.scope !== "account") return false;
	const held = credential.permissions;
	return held.includes("*") || held.includes(permission) || held.includes(permission.replace(/:read$/, ":write"));
}

const reaches = (credential: Credential, tenant: TenantName) => credential.tenants.includes(tenant);
const wholeAccount = (credential: Credential) => credential.scope === "account" && reaches(credential, "A2");

/** The answer the documented rules give, in the order the server decides. */
function expected(credential: Credential, row: Row, relation: Relation, operation: Operation): Expected {
	const ok = { status: row.ok! };
	if (credential.refusedWith) return early({ status: 401, code: credential.refusedWith });
	const tenant = RELATION_TENANT[relation];
	const viaHeader = operation.params.length === 0;
	// Authentication resolves X-Tenant-ID: a tenant an account credential does not reach is missing.
	if (viaHeader && relation !== "own" && credential.scope === "account" && !reaches(credential, tenant)) {
		return early(NOT_FOUND);
	}
	if ("session" in row.rule) return credential.kind === "session" ? ok : { status: 422 };
	if ("permission" in row.rule) {
		const { permission, reach } = row.rule;
		// Authorization before validation: the operation's rule is checked before its body is read.
		if (reach !== "tenant" && credential.scope !== "account") return early(FORBIDDEN);
		if (!grants(credential, permission)) return early(FORBIDDEN);
		if (reach === "whole-account" && !wholeAccount(credential)) return early(FORBIDDEN);
	}
	switch (row.target) {
		case undefined:
			// A tenant key ignores X-Tenant-ID: it works in A1, where another tenant's object is missing.
			return row.namesObject && credential.scope === "tenant" && relation !== "own" ? NOT_FOUND : ok;
		case "resource":
			return relation === "own" ? ok : NOT_FOUND;
		case "tenant":
		case "key":
			return reaches(credential, tenant) ? ok : NOT_FOUND;
		case "account":
			return relation === "own" ? ok : NOT_FOUND;
		case "inherited":
			if (relation !== "own") return NOT_FOUND;
			return credential.scope === "tenant" ? FORBIDDEN : ok;
	}
}

/** Account-level objects are the same for A1 and A2: no sibling to address. */
const relationsOf = (row: Row): Relation[] =>
	row.target === "account" || row.target === "inherited" ? ["own", "other"] : ["own", "sibling", "other"];

/** The ids of the path parameters for a relation. */
function paramsFor(world: World, row: Row, relation: Relation): Record<string, string> {
	const objects = world.tenants[RELATION_TENANT[relation]];
	const account = world.accounts[RELATION_ACCOUNT[relation]];
	const masterAddressed = row.target === "account" || row.target === "inherited";
	return {
		tenant_id: objects.id,
		key_id: objects.key,
		partner_id: masterAddressed ? account.master : objects.partner,
		cert_id: objects.certificate,
		message_id: objects.message,
		number: "1",
		webhook_id: objects.webhook,
		delivery_id: objects.delivery,
		account_id: account.id,
	};
}

/** Fixture ids a credential must never be shown: other accounts', and tenants' it does not reach. */
function unreachableIds(world: World, credential: Credential): string[] {
	const ids = (tenant: TenantName) => Object.values(world.tenants[tenant]);
	return [
		...ids("B1"),
		world.accounts.B.id,
		world.accounts.B.master,
		...(reaches(credential, "A2") && !credential.refusedWith ? [] : ids("A2")),
	];
}

interface Outcome {
	label: string;
	status: number;
	expected: Expected;
	mismatch: boolean;
	leaked: string[];
}

let server: BuiltServer;
let world: World;
let operations: Operation[];

beforeAll(async () => {
	server = await startBuiltServer({
		args: ["--role", "api"],
		env: {
			AS2_DEFAULT_PLAN: "enterprise",
			AS2_TRUST_PROXY: "1",
			AS2_ALLOW_HTTP: "1",
			AS2_ALLOW_PRIVATE_TARGETS: "1",
		},
	});
	world = await buildWorld(server.base);
	operations = await operationsOf(server.base);
}, 180_000);
afterAll(async () => {
	await world?.close();
	await server?.stop();
});

describe("the authorization matrix, generated from /openapi.json", () => {
	it("has exactly one row for every operation of the document", () => {
		const keys = operations.map((o) => o.key);
		expect(
			keys.filter((k) => !(k in TABLE)),
			"operations without a row in TABLE",
		).toEqual([]);
		expect(
			Object.keys(TABLE).filter((k) => !keys.includes(k)),
			"rows of no operation",
		).toEqual([]);
	});

	it("has a minimal valid body for exactly the operations that take one", () => {
		for (const operation of operations) {
			expect(TABLE[operation.key]!.body !== undefined, operation.key).toBe(operation.hasBody && !operation.public);
		}
	});

	it("agrees with the access rule each operation's description states (x-access)", () => {
		for (const operation of operations) {
			const rule = TABLE[operation.key]!.rule;
			if ("public" in rule) {
				expect(operation.public, operation.key).toBe(true);
				continue;
			}
			const documented =
				"permission" in rule
					? { permission: rule.permission, reach: rule.reach }
					: { permission: null, reach: "tenant" };
			expect(operation.access, operation.key).toEqual(documented);
		}
	});

	it("answers every credential kind on every operation and relation as the table says, leaking nothing", async () => {
		const started = performance.now();
		let serial = 0;
		let forwardedFor = 0;
		const cells = operations
			.filter((operation) => !("public" in TABLE[operation.key]!.rule))
			.flatMap((operation) => {
				const row = TABLE[operation.key]!;
				return world.credentials.flatMap((credential) =>
					relationsOf(row).map((relation) => ({ operation, row, credential, relation })),
				);
			});
		const outcomes = await runBounded(cells, 8, async ({ operation, row, credential, relation }): Promise<Outcome> => {
			const want = expected(credential, row, relation, operation);
			const cell: Cell = { world, relation, tenant: RELATION_TENANT[relation], serial: ++serial };
			let params = paramsFor(world, row, relation);
			let token = credential.token;
			if (row.consumes && want.status === row.ok) {
				const fresh = await row.consumes(world, relation);
				params = { ...params, ...fresh.params };
				token = fresh.token ?? token;
			}
			const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name]!);
			const headers: Record<string, string> = {};
			if (operation.params.length === 0 && relation !== "own") headers["x-tenant-id"] = world.tenants[cell.tenant].id;
			// A refused credential counts against its client address; each names its own (RFC 3849).
			if (credential.refusedWith) headers["x-forwarded-for"] = `2001:db8::${(++forwardedFor).toString(16)}`;
			// A JSON array is no valid body of any operation: only a refusal before validation survives it.
			const body = operation.hasBody ? (want.early ? [] : row.body?.(cell)) : bodyOfBodiless(operation.method);
			const response = await call(world.base, operation.method, path, { token, headers, body });
			const error = response.json?.error;
			const mismatch =
				response.status !== want.status ||
				(want.code !== undefined && error?.code !== want.code) ||
				(want.type !== undefined && error?.type !== want.type);
			const sent = `${path} ${JSON.stringify(headers)} ${JSON.stringify(body ?? null)}`;
			const leaked = unreachableIds(world, credential).filter((id) => response.text.includes(id) && !sent.includes(id));
			return {
				label: `${credential.name} · ${operation.key} · ${relation}: got ${response.status} ${error?.code ?? ""} ${mismatch ? response.text.slice(0, 160) : ""}, want ${JSON.stringify(want)}`,
				status: response.status,
				expected: want,
				mismatch,
				leaked,
			};
		});
		const seconds = ((performance.now() - started) / 1000).toFixed(1);
		const byStatus: Record<number, number> = {};
		for (const o of outcomes) byStatus[o.expected.status] = (byStatus[o.expected.status] ?? 0) + 1;
		console.info(
			`authorization matrix: ${operations.length} operations, ${world.credentials.length} credential kinds, ` +
				`${outcomes.length} requests in ${seconds} s (+${world.requests()} to build the world and the fresh objects of allowed DELETEs and logouts); ` +
				`expected answers ${JSON.stringify(byStatus)}`,
		);
		expect({
			mismatches: outcomes.filter((o) => o.mismatch).map((o) => o.label),
			leaks: outcomes.filter((o) => o.leaked.length > 0).map((o) => `${o.label} leaked ${o.leaked.join(", ")}`),
		}).toEqual({ mismatches: [], leaks: [] });
		expect(outcomes.filter((o) => o.status >= 500)).toEqual([]);
		// Every kind of answer occurs, so the table cannot pass by always expecting the same.
		expect(new Set(outcomes.map((o) => o.expected.status))).toEqual(new Set([200, 201, 202, 401, 403, 404, 422]));
		server.assertAlive();
	}, 300_000);
});

/**
 * Webhook endpoints and the account's events (README, Webhooks): beyond each operation's row,
 * subscribing to an account-level kind, and changing or deleting an endpoint that receives the
 * account's events (`account_events: true`), need a credential reaching the whole account;
 * others get 403 before their body is validated. Each case, for every credential kind.
 */
const ACCOUNT_EVENT_CASES: {
	key: string;
	ok: number;
	/** The path and body of an allowed request. */
	request: (world: World, flagged: () => Promise<string>) => Promise<{ path: string; body: unknown }>;
	/** A body that would be a 422: a refusal must come first. */
	invalid: unknown;
}[] = [
	{
		key: "POST /v1/webhook-endpoints",
		ok: 201,
		request: async (w) => ({ path: "/v1/webhook-endpoints", body: { url: `${w.sinkUrl}/hook`, events: ["tenant.*"] } }),
		invalid: { url: "ftp://nowhere", events: ["tenant.*", "billing.*"], secret: "short" },
	},
	{
		key: "PATCH /v1/webhook-endpoints/{webhook_id}",
		ok: 200,
		request: async (_, flagged) => ({ path: `/v1/webhook-endpoints/${await flagged()}`, body: { events: ["*"] } }),
		invalid: [],
	},
	{
		key: "DELETE /v1/webhook-endpoints/{webhook_id}",
		ok: 200,
		request: async (_, flagged) => ({ path: `/v1/webhook-endpoints/${await flagged()}`, body: {} }),
		invalid: {},
	},
];

describe("the account's events in the authorization matrix", () => {
	it("lets only credentials reaching the whole account subscribe to them or change their endpoints", async () => {
		const owner = world.accounts.A.ownerToken;
		const flagged = async () => {
			const created = await call(world.base, "POST", "/v1/webhook-endpoints", {
				token: owner,
				body: { url: `${world.sinkUrl}/account`, events: ["*"] },
			});
			expect([created.status, created.json?.data?.account_events]).toEqual([201, true]);
			return created.json.data.id as string;
		};
		const rule: Rule = { permission: "webhooks:write", reach: "whole-account" };
		const operation = (key: string) => operations.find((o) => o.key === key)!;
		const cells = ACCOUNT_EVENT_CASES.flatMap((c) => world.credentials.map((credential) => ({ c, credential })));
		let forwardedFor = 0x1000;
		const mismatches = (
			await runBounded(cells, 4, async ({ c, credential }) => {
				const want = expected(credential, { rule, ok: c.ok }, "own", operation(c.key));
				const { path, body } = await c.request(world, flagged);
				const headers: Record<string, string> = {};
				if (credential.refusedWith) headers["x-forwarded-for"] = `2001:db8::${(++forwardedFor).toString(16)}`;
				const sent = want.status === c.ok ? body : c.invalid;
				const response = await call(world.base, operation(c.key).method, path, {
					token: credential.token,
					headers,
					body: sent,
				});
				const wrong =
					response.status !== want.status || (want.code !== undefined && response.json?.error?.code !== want.code);
				return wrong
					? `${credential.name} · ${c.key}: got ${response.status} ${response.text.slice(0, 160)}, want ${JSON.stringify(want)}`
					: null;
			})
		).filter((m) => m !== null);
		expect(mismatches).toEqual([]);
		server.assertAlive();
	}, 120_000);
});
