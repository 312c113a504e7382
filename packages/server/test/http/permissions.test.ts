import type { MemberRole } from "@as2kit/core/store";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorSchema } from "../../src/http/openapi.ts";
import { generateToken, hashToken } from "../../src/service/secrets/tokens.ts";
import { makeCertificates } from "../helpers/certs.ts";
import { createKey, createTestApp, register, type TestApp, type TestResponse } from "../helpers/test-app.ts";

/**
 * Permissions of certificates and messages (interface spec, Authentication 8–9): a key
 * without the permission an operation needs gets 403 `authorization_error` /
 * `insufficient_scope` in the categorized error shape, and the operation does nothing.
 */
let t: TestApp;
let owner: Awaited<ReturnType<typeof register>>;
const keys: Record<string, string> = {};
let partnerId: string;
let certificateId: string;
let messageId: string;
let pem: string;

beforeAll(async () => {
	t = createTestApp({ defaultPlan: "enterprise" });
	owner = await register(t, "Scoped");
	const make = (permissions: string[]) =>
		createKey(t, owner.token, { scope: "tenant", tenant_id: owner.tenantId, environment: "test", permissions });
	keys.all = await make(["*"]);
	keys.partnersOnly = await make(["partners:read", "partners:write"]);
	keys.certificatesRead = await make(["certificates:read"]);
	keys.certificatesWrite = await make(["certificates:write"]);
	keys.messagesRead = await make(["messages:read"]);
	keys.messagesWrite = await make(["messages:write"]);
	partnerId = (
		await t.call("POST", "/v1/partners", {
			token: keys.all,
			body: { name: "Buyer", as2_id: "BUYER", url: "https://buyer.example/as2" },
		})
	).json.data.id;
	pem = makeCertificates().selfSigned("scoped-partner").certPem;
	certificateId = (
		await t.call("POST", "/v1/certificates", {
			token: keys.all,
			body: { name: "buyer", type: "partner", usage: "both", partner_id: partnerId, certificate: pem },
		})
	).json.data.id;
	messageId = (
		await t.call("POST", "/v1/messages", {
			token: keys.all,
			body: { partner_id: partnerId, content_type: "text/plain", payload: { content: "hello" } },
		})
	).json.data.id;
});
afterAll(() => t.close());

function expectInsufficientScope(response: TestResponse, permission: string, label = "") {
	expect(response.status, `${label} ${response.text}`).toBe(403);
	expect(v.is(errorSchema, response.json), label).toBe(true);
	expect(response.json, label).toEqual({
		message: `this key lacks the ${permission} permission`,
		error: {
			type: "authorization_error",
			code: "insufficient_scope",
			message: `this key lacks the ${permission} permission`,
			details: { required_permission: permission },
		},
	});
}

const certificateCount = async () =>
	(await t.call("GET", "/v1/certificates?type=partner", { token: keys.all })).json.pagination.total as number;
const messageCount = async () =>
	(await t.call("GET", "/v1/messages", { token: keys.all })).json.pagination.total as number;
const upload = () => ({ name: "another", type: "partner", usage: "both", partner_id: partnerId, certificate: pem });

describe("certificates", () => {
	it("GET /v1/certificates and GET /v1/certificates/{id} need certificates:read", async () => {
		for (const path of ["/v1/certificates", `/v1/certificates/${certificateId}`]) {
			expectInsufficientScope(await t.call("GET", path, { token: keys.partnersOnly }), "certificates:read", path);
			expect((await t.call("GET", path, { token: keys.certificatesRead })).status).toBe(200);
			// certificates:write includes reading.
			expect((await t.call("GET", path, { token: keys.certificatesWrite })).status).toBe(200);
		}
	});

	it("POST /v1/certificates needs certificates:write, and stores nothing without it", async () => {
		const before = await certificateCount();
		for (const token of [keys.partnersOnly, keys.certificatesRead]) {
			expectInsufficientScope(
				await t.call("POST", "/v1/certificates", { token, body: upload() }),
				"certificates:write",
			);
		}
		expect(await certificateCount()).toBe(before);
		expect((await t.call("POST", "/v1/certificates", { token: keys.certificatesWrite, body: upload() })).status).toBe(
			201,
		);
		expect(await certificateCount()).toBe(before + 1);
	});

	it("activating, deactivating and deleting a certificate need certificates:write", async () => {
		for (const [method, path] of [
			["POST", `/v1/certificates/${certificateId}/deactivate`],
			["POST", `/v1/certificates/${certificateId}/activate`],
			["DELETE", `/v1/certificates/${certificateId}`],
		] as const) {
			expectInsufficientScope(
				await t.call(method, path, { token: keys.certificatesRead }),
				"certificates:write",
				`${method} ${path}`,
			);
		}
		const still = await t.call("GET", `/v1/certificates/${certificateId}`, { token: keys.all });
		expect(still.json.data).toMatchObject({ id: certificateId, active: true });
	});
});

describe("messages", () => {
	it("POST /v1/messages needs messages:write, and queues nothing without it", async () => {
		const before = await messageCount();
		const body = { partner_id: partnerId, content_type: "text/plain", payload: { content: "hello" } };
		for (const token of [keys.messagesRead, keys.partnersOnly]) {
			expectInsufficientScope(await t.call("POST", "/v1/messages", { token, body }), "messages:write");
			// Nor does it tell such a key whether a partner exists.
			expectInsufficientScope(
				await t.call("POST", "/v1/messages", { token, body: { ...body, partner_id: "prt_999999" } }),
				"messages:write",
			);
		}
		expect(await messageCount()).toBe(before);
		expect((await t.call("POST", "/v1/messages", { token: keys.messagesWrite, body })).status).toBe(202);
		expect(await messageCount()).toBe(before + 1);
	});

	it("POST /v1/messages as multipart needs messages:write, and streams nothing to the blob store without it", async () => {
		const blobs = t.service.deps.blobs;
		const put = blobs.put.bind(blobs);
		const written: string[] = [];
		blobs.put = async (key, body, options) => {
			written.push(key);
			return put(key, body, options);
		};
		try {
			const before = await messageCount();
			const form = new FormData();
			form.append("partner_id", partnerId);
			form.append("content_type", "text/plain");
			form.append("file", new Blob(["order 1"], { type: "text/plain" }), "order.txt");
			const response = await t.app.request("/v1/messages", {
				method: "POST",
				body: form,
				headers: { authorization: `Bearer ${keys.messagesRead}` },
			});
			const text = await response.text();
			expectInsufficientScope(
				{ status: response.status, headers: response.headers, text, json: JSON.parse(text) },
				"messages:write",
			);
			expect(await messageCount()).toBe(before);
			// Authorization comes before the upload is read (issue #16): nothing reached the store.
			expect(written).toEqual([]);
		} finally {
			blobs.put = put;
		}
	});

	it("GET /v1/messages, one message and its payload need messages:read", async () => {
		for (const path of ["/v1/messages", `/v1/messages/${messageId}`, `/v1/messages/${messageId}/payload`]) {
			expectInsufficientScope(await t.call("GET", path, { token: keys.partnersOnly }), "messages:read", path);
			expectInsufficientScope(await t.call("GET", path, { token: keys.certificatesWrite }), "messages:read", path);
			expect((await t.call("GET", path, { token: keys.messagesRead })).status, path).toBe(200);
			// messages:write includes reading.
			expect((await t.call("GET", path, { token: keys.messagesWrite })).status, path).toBe(200);
		}
	});
});

// Issue #16: authorization comes before validation, so a caller without the grant learns
// nothing but 403 — not which fields a body needs, nor a stored idempotent response.
describe("authorization before validation", () => {
	it("answers 403, not 422, to an invalid body or query from a key without the permission", async () => {
		for (const [method, path, body] of [
			["POST", "/v1/partners", { name: "" }],
			["PATCH", `/v1/partners/${partnerId}`, { url: "ftp://nowhere" }],
			["POST", "/v1/webhook-endpoints", { url: "ftp://x", secret: "short" }],
			["POST", "/v1/certificates", { type: "nonsense" }],
			["GET", "/v1/partners?page=0", undefined],
			["POST", "/v1/api-keys", { scope: "everything" }],
		] as const) {
			const response = await t.call(method, path, { token: keys.messagesRead, body });
			expect(response.status, `${method} ${path}: ${response.text}`).toBe(403);
			expect(response.json.error.code).toBe("insufficient_scope");
		}
	});

	it("answers 403, not 422, to an invalid body on an operation that needs the whole account", async () => {
		const restricted = await createKey(t, owner.token, {
			scope: "account",
			permissions: ["*"],
			allowed_tenant_ids: [owner.tenantId],
		});
		for (const [method, path, body] of [
			["PATCH", "/v1/account", { plan: "gold" }],
			["POST", "/v1/tenants", { name: "" }],
			["POST", `/v1/accounts/${owner.accountId}/partners`, { url: "ftp://x" }],
		] as const) {
			const response = await t.call(method, path, { token: restricted, body });
			expect(response.status, `${method} ${path}: ${response.text}`).toBe(403);
		}
	});

	it("does not replay another key's idempotent response to a key without the permission", async () => {
		const headers = { "idempotency-key": "5b6f1c2e-8d3a-4c1b-9e2f-7a6b5c4d3e2f" };
		const body = { partner_id: partnerId, content_type: "text/plain", payload: { content: "replayed?" } };
		const sent = await t.call("POST", "/v1/messages", { token: keys.messagesWrite, body, headers });
		expect(sent.status).toBe(202);
		const replay = await t.call("POST", "/v1/messages", { token: keys.messagesRead, body, headers });
		expectInsufficientScope(replay, "messages:write");
		expect(replay.text).not.toContain(sent.json.data.id);
	});
});

describe("sessions by role", () => {
	/** A session in the owner's account for a new user of `role` (no endpoint adds members yet). */
	async function sessionOf(role: MemberRole): Promise<string> {
		const user = await register(t, `${role} user`);
		const at = t.clock.now();
		await t.store.memberships.create({ accountId: owner.accountId, userId: user.userId, role, createdAt: at });
		const token = generateToken("sess_");
		await t.store.sessions.create({
			id: await t.store.ids.next("ses_"),
			userId: user.userId,
			accountId: owner.accountId,
			tokenHash: hashToken(t.service.deps.tokenKey, token),
			createdAt: at,
			expiresAt: new Date(at.getTime() + 3_600_000),
			lastUsedAt: null,
			revokedAt: null,
		});
		return token;
	}

	it("a member works in every tenant but changes nothing the tenants share, and manages no keys", async () => {
		const member = await sessionOf("member");
		expect((await t.call("GET", "/v1/partners", { token: member })).status).toBe(200);
		expect((await t.call("GET", "/v1/account", { token: member })).status).toBe(200);
		expect((await t.call("GET", "/v1/tenants", { token: member })).status).toBe(200);
		for (const [method, path, body] of [
			["PATCH", "/v1/account", { name: "Member's" }],
			["POST", "/v1/tenants", { name: "Member's" }],
			["POST", `/v1/accounts/${owner.accountId}/partners`, { name: "M", as2_id: "M", url: "https://m.example/as2" }],
			["POST", "/v1/api-keys", { name: "m", scopes: ["messages:read"] }],
			["GET", "/v1/api-keys", undefined],
		] as const) {
			const response = await t.call(method, path, { token: member, body });
			expect(response.status, `${method} ${path}: ${response.text}`).toBe(403);
		}
	});

	it("an admin acts for the whole account, as the owner does", async () => {
		const admin = await sessionOf("admin");
		expect((await t.call("PATCH", "/v1/account", { token: admin, body: { name: "Scoped" } })).status).toBe(200);
		expect((await t.call("GET", "/v1/api-keys", { token: admin })).status).toBe(200);
	});
});
