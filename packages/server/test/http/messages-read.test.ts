import { createHash } from "node:crypto";
import { formatId, type MessageRecord } from "@as2kit/core/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MESSAGE_COUNT_LIMIT } from "../../src/service/messages/message-reads.ts";
import { createMessagesInBulk } from "../helpers/bulk-messages.ts";
import { bytesStream, messageRecord, patternStream, storeMessage } from "../helpers/messages.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
let owner: Awaited<ReturnType<typeof register>>;
let other: Awaited<ReturnType<typeof register>>;
let key: string;
beforeEach(async () => {
	// Enterprise: no rate limit in the way of many reads.
	t = createTestApp({ defaultPlan: "enterprise" });
	owner = await register(t, "Reader");
	other = await register(t, "Other");
	key = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "live",
		permissions: ["messages:read"],
	});
});
afterEach(() => t.close());

const at = (hours: number) => new Date(Date.UTC(2026, 1, 1, hours));
const get = (path: string, token = key, headers: Record<string, string> = {}) =>
	t.call("GET", path, { token, headers });
const ids = async (query: string) => {
	const response = await get(`/v1/messages?${query}`);
	expect(response.status, response.text).toBe(200);
	return (response.json.data as { id: string }[]).map((m) => m.id);
};

/** Five messages of the owner's tenant that differ in every filtered field, and their look-alike in another tenant. */
async function seedVaried(): Promise<Record<string, MessageRecord>> {
	const m = {
		delivered: await storeMessage(t, owner, {
			createdAt: at(1),
			status: "delivered",
			mdnStatus: "received",
			subject: "Invoice 42",
			partnerId: "prt_000001",
			deliveredAt: at(2),
		}),
		inbound: await storeMessage(t, owner, {
			createdAt: at(2),
			direction: "inbound",
			status: "received",
			partnerId: "prt_000002",
			encrypted: false,
			mdnStatus: "none",
			contentType: "application/xml",
			subject: null,
		}),
		failed: await storeMessage(t, owner, {
			createdAt: at(3),
			status: "failed",
			mdnStatus: "failed",
			errorCode: "PARTNER_UNREACHABLE",
			errorMessage: "connect ECONNREFUSED",
			partnerId: "prt_000001",
		}),
		test: await storeMessage(t, owner, {
			createdAt: at(4),
			environment: "test",
			signed: false,
			partnerId: "prt_master_000001",
			messageId: "Custom-4@host.example",
		}),
		timeout: await storeMessage(t, owner, {
			createdAt: at(5),
			status: "failed",
			mdnStatus: "timeout",
			errorCode: "MDN_TIMEOUT",
			partnerId: "prt_000002",
			compressed: true,
		}),
	};
	// Another tenant's message matches every filter below: it must never show.
	await storeMessage(t, other, {
		createdAt: at(3),
		status: "failed",
		direction: "inbound",
		mdnStatus: "timeout",
		errorCode: "X",
		encrypted: false,
		signed: false,
		environment: "test",
		contentType: "application/xml",
		subject: "Invoice 42",
		messageId: "Custom-4@host.example",
		partnerId: "prt_000001",
	});
	return m;
}

describe("GET /v1/messages", () => {
	it("lists the tenant's messages newest first, without mdn_data, with the spec's pagination", async () => {
		const m = await seedVaried();
		const response = await get("/v1/messages");
		expect(response.status).toBe(200);
		expect(response.json.data.map((x: { id: string }) => x.id)).toEqual(
			[m.timeout, m.test, m.failed, m.inbound, m.delivered].map((x) => x!.id),
		);
		expect(response.json.pagination).toEqual({
			current_page: 1,
			last_page: 1,
			per_page: 20,
			total: 5,
			from: 1,
			to: 5,
			total_exact: true,
		});
		const first = response.json.data[4];
		expect(first).not.toHaveProperty("mdn_data");
		expect(first).toEqual({
			id: m.delivered!.id,
			message_id: `${m.delivered!.id}@as2kit.example`,
			partner: { id: "prt_000001", name: "Partner", as2_id: "PARTNER" },
			status: "delivered",
			direction: "outbound",
			environment: "live",
			from_as2_id: "ME",
			to_as2_id: "PARTNER",
			subject: "Invoice 42",
			content_type: "application/edi-x12",
			filename: null,
			bytes: 100,
			compressed: false,
			encrypted: true,
			signed: true,
			mdn_mode: "sync",
			mdn_status: "received",
			priority: "normal",
			attempts: 0,
			last_attempt_at: null,
			scheduled_at: null,
			sent_at: null,
			delivered_at: "2026-02-01T02:00:00.000000Z",
			error_code: null,
			error_message: null,
			error_hint: null,
			next_attempt_at: null,
			resent_from: null,
			resent_as: [],
			created_at: "2026-02-01T01:00:00.000000Z",
			updated_at: "2026-02-01T01:00:00.000000Z",
		});
	});

	it("applies every filter of the spec, and environment, each alone", async () => {
		const m = await seedVaried();
		const cases: [string, (keyof typeof m)[]][] = [
			["status=delivered", ["delivered"]],
			["status=failed", ["timeout", "failed"]],
			["status=sent", []],
			["direction=inbound", ["inbound"]],
			["direction=outbound", ["timeout", "test", "failed", "delivered"]],
			["partner_id=prt_000002", ["timeout", "inbound"]],
			["partner_id=prt_master_000001", ["test"]],
			["partner_id=prt_000009", []],
			["from_date=2026-02-01T02:00:00Z", ["timeout", "test", "failed"]],
			["to_date=2026-02-01T03:00:00Z", ["inbound", "delivered"]],
			["from_date=2026-02-01T01:30:00%2B01:00&to_date=2026-02-01T04:00:00.000000Z", ["failed", "inbound", "delivered"]],
			// A "+" left unencoded arrives as a space, and still means an offset east of UTC.
			["from_date=2026-02-01T02:30:00+01:00&to_date=2026-02-01T03:30Z", ["failed", "inbound"]],
			["from_date=2026-02-01", ["timeout", "test", "failed", "inbound", "delivered"]],
			["to_date=2026-02-01", []],
			["search=invoice", ["delivered"]],
			["search=CUSTOM-4%40HOST", ["test"]],
			["search=%3CCustom-4%40host.example%3E", ["test"]],
			["search=%25", []],
			["content_type=application/xml", ["inbound"]],
			["has_errors=true", ["timeout", "failed"]],
			["has_errors=false", ["test", "inbound", "delivered"]],
			["mdn_status=timeout", ["timeout"]],
			["mdn_status=none", ["inbound"]],
			["encrypted=false", ["inbound"]],
			["encrypted=true", ["timeout", "test", "failed", "delivered"]],
			["signed=false", ["test"]],
			["signed=0", ["test"]],
			["environment=test", ["test"]],
			["environment=live", ["timeout", "failed", "inbound", "delivered"]],
		];
		for (const [query, expected] of cases) {
			expect(await ids(query), query).toEqual(expected.map((name) => m[name]!.id));
		}
	});

	it("combines filters", async () => {
		const m = await seedVaried();
		expect(await ids("partner_id=prt_000001&status=failed")).toEqual([m.failed!.id]);
		expect(await ids("direction=outbound&has_errors=false&environment=live")).toEqual([m.delivered!.id]);
		expect(await ids("status=failed&mdn_status=timeout&partner_id=prt_000002&encrypted=true")).toEqual([m.timeout!.id]);
		expect(
			await ids("direction=outbound&from_date=2026-02-01T00:00:00Z&to_date=2026-02-01T04:00:00Z&signed=true"),
		).toEqual([m.failed!.id, m.delivered!.id]);
		expect(await ids("search=order&content_type=application/edi-x12&has_errors=true")).toEqual([
			m.timeout!.id,
			m.failed!.id,
		]);
		expect(await ids("direction=inbound&signed=false")).toEqual([]);
	});

	it("pages newest first with from/to, and answers an empty page past the end", async () => {
		const stored: string[] = [];
		for (let i = 0; i < 7; i++) stored.unshift((await storeMessage(t, owner, { createdAt: at(i) })).id);
		// Two messages in one millisecond keep a stable order: the later id first.
		const twin = await storeMessage(t, owner, { createdAt: at(6) });
		stored.unshift(twin.id);
		const page2 = await get("/v1/messages?per_page=3&page=2");
		expect(page2.json.data.map((x: { id: string }) => x.id)).toEqual(stored.slice(3, 6));
		expect(page2.json.pagination).toEqual({
			current_page: 2,
			last_page: 3,
			per_page: 3,
			total: 8,
			from: 4,
			to: 6,
			total_exact: true,
		});
		const last = await get("/v1/messages?per_page=3&page=3");
		expect(last.json.data.map((x: { id: string }) => x.id)).toEqual(stored.slice(6));
		expect(last.json.pagination).toMatchObject({ total: 8, from: 7, to: 8 });
		const past = await get("/v1/messages?per_page=3&page=9");
		expect(past.json).toEqual({
			data: [],
			pagination: { current_page: 9, last_page: 3, per_page: 3, total: 8, from: 0, to: 0, total_exact: true },
		});
		expect((await get("/v1/messages?status=sent")).json.pagination).toMatchObject({ total: 0, last_page: 1 });
	});

	it.each([
		["status=done", "status"],
		["direction=sideways", "direction"],
		["environment=production", "environment"],
		["partner_id=acme", "partner_id"],
		["from_date=yesterday", "from_date"],
		["from_date=2026-02-30", "from_date"],
		["to_date=2026-02-01T25:00:00Z", "to_date"],
		["to_date=2026-02-01T10:00:00", "to_date"],
		["from_date=2026-02-02&to_date=2026-02-01", "to_date"],
		["from_date=2026-02-01&to_date=2026-02-01", "to_date"],
		["search=", "search"],
		[`search=${"x".repeat(256)}`, "search"],
		["content_type=xml", "content_type"],
		["has_errors=maybe", "has_errors"],
		["mdn_status=lost", "mdn_status"],
		["encrypted=yes", "encrypted"],
		["signed=2", "signed"],
		["page=0", "page"],
		["per_page=101", "per_page"],
		["per_page=ten", "per_page"],
	])("refuses %s with 422 naming %s", async (query, field) => {
		const response = await get(`/v1/messages?${query}`);
		expect(response.status, response.text).toBe(422);
		expect(response.json.error).toMatchObject({ type: "validation_error", code: "VALIDATION_FAILED" });
		expect(Object.keys(response.json.errors)).toEqual([field]);
		expect(response.json.message).toMatch(new RegExp(`^${field} `));
	});

	it("needs messages:read (messages:write includes it), and shows test and live messages to either kind of key", async () => {
		await storeMessage(t, owner, { environment: "test" });
		await storeMessage(t, owner, { environment: "live" });
		const partnersOnly = await createKey(t, owner.token, {
			scope: "tenant",
			tenant_id: owner.tenantId,
			permissions: ["partners:read"],
		});
		const refused = await get("/v1/messages", partnersOnly);
		expect(refused.status).toBe(403);
		expect(refused.json.error).toMatchObject({ type: "authorization_error", code: "insufficient_scope" });
		const writer = await createKey(t, owner.token, {
			scope: "tenant",
			tenant_id: owner.tenantId,
			permissions: ["messages:write"],
		});
		expect((await get("/v1/messages", writer)).json.pagination.total).toBe(2);
		const testKey = await createKey(t, owner.token, {
			scope: "tenant",
			tenant_id: owner.tenantId,
			environment: "test",
			permissions: ["*"],
		});
		expect((await get("/v1/messages", testKey)).json.pagination.total).toBe(2);
	});

	it("counts up to a limit past the page and then reports a lower bound that grows with the page", async () => {
		const many = MESSAGE_COUNT_LIMIT + 21;
		await createMessagesInBulk(
			t.store,
			Array.from({ length: many }, (_, k) =>
				messageRecord(owner, formatId("msg_", k + 1), { createdAt: new Date(at(0).getTime() + k + 1) }),
			),
		);
		const first = await get("/v1/messages");
		expect(first.json.pagination).toEqual({
			current_page: 1,
			last_page: MESSAGE_COUNT_LIMIT / 20,
			per_page: 20,
			total: MESSAGE_COUNT_LIMIT,
			from: 1,
			to: 20,
			total_exact: false,
		});
		// Further on, the count reaches the end: exact again.
		const later = await get("/v1/messages?page=499");
		expect(later.json.pagination).toMatchObject({ total: many, total_exact: true, last_page: 502 });
		const last = await get("/v1/messages?page=502");
		expect(last.json.data.map((x: { id: string }) => x.id)).toEqual(["msg_000001"]);
		expect(last.json.pagination).toMatchObject({ total: many, total_exact: true, from: many, to: many });
	});
});

describe("GET /v1/messages/{message_id}", () => {
	it("answers the message with its MDN data and the partner's URL", async () => {
		const m = await storeMessage(t, owner, {
			status: "delivered",
			mdnStatus: "received",
			mdnData: {
				disposition: "automatic-action/MDN-sent-automatically; processed",
				receivedContentMic: "Zm9v, sha-256",
				reportingUa: "Partner AS2",
				originalMessageId: "m1@as2kit.example",
				finalRecipient: "PARTNER",
				signed: true,
				signatureValid: true,
				micMatches: true,
				messageId: "mdn1@partner.example",
				receivedAt: "2026-03-01T09:00:05.000Z",
			},
			mic: "Zm9v, sha-256",
			headers: { "X-Order": "42" },
			transmissionTimeMs: 850,
		});
		const response = await get(`/v1/messages/${m.id}`);
		expect(response.status).toBe(200);
		expect(response.json.data).toMatchObject({
			id: m.id,
			partner: { id: "prt_000001", name: "Partner", as2_id: "PARTNER", url: "https://partner.example/as2" },
			mdn_data: {
				disposition: "automatic-action/MDN-sent-automatically; processed",
				received_content_mic: "Zm9v, sha-256",
				reporting_ua: "Partner AS2",
				original_message_id: "m1@as2kit.example",
				final_recipient: "PARTNER",
			},
			headers: { "X-Order": "42" },
			transmission_time_ms: 850,
		});
		const pending = await storeMessage(t, owner);
		expect((await get(`/v1/messages/${pending.id}`)).json.data.mdn_data).toBeNull();
	});

	it("answers 404 for another tenant's message and for one that does not exist", async () => {
		const theirs = await storeMessage(t, other);
		for (const id of [theirs.id, "msg_999999", "nonsense"]) {
			const response = await get(`/v1/messages/${id}`);
			expect(response.status, id).toBe(404);
			expect(response.json.error).toMatchObject({ type: "resource_error", code: "NOT_FOUND" });
			expect(response.text).not.toContain("Order");
		}
	});
});

describe("GET /v1/messages/{message_id}/payload", () => {
	/** The blob's key as the store chose it (BlobStore.put), which a message names. */
	const putPayload = async (key: string, stream: ReadableStream<Uint8Array>) => t.service.deps.blobs.put(key, stream);

	it("streams the original bytes with the spec's headers", async () => {
		const bytes = new TextEncoder().encode("ISA*00*          *00*~\nGS*PO*~\n");
		const { key: po } = await putPayload("payloads/po.x12", bytesStream(bytes));
		const m = await storeMessage(t, owner, {
			payloadKey: po,
			filename: "po-4711.x12",
			compressed: true,
			encrypted: false,
			bytes: bytes.byteLength,
		});
		const response = await t.app.request(`/v1/messages/${m.id}/payload`, {
			headers: { authorization: `Bearer ${key}` },
		});
		expect(response.status).toBe(200);
		expect(Object.fromEntries(response.headers)).toMatchObject({
			"content-type": "application/edi-x12",
			"content-length": String(bytes.byteLength),
			"content-disposition": 'attachment; filename="po-4711.x12"',
			"x-payload-compressed": "true",
			"x-payload-encrypted": "false",
			"x-content-type-options": "nosniff",
		});
		expect(new Uint8Array(await response.arrayBuffer())).toEqual(bytes);
	});

	it("names the file in UTF-8 when it is not plain ASCII, and by the message id when it has no name", async () => {
		const { key: a } = await putPayload("payloads/a", bytesStream(new Uint8Array([1, 2, 3])));
		const named = await storeMessage(t, owner, {
			payloadKey: a,
			filename: 'Rechnung "März" 100%.pdf',
			contentType: "application/pdf",
		});
		const unnamed = await storeMessage(t, owner, { payloadKey: a, contentType: "application/xml" });
		const odd = await storeMessage(t, owner, { payloadKey: a, contentType: "application/x-custom" });
		const disposition = async (id: string) =>
			(await get(`/v1/messages/${id}/payload`)).headers.get("content-disposition");
		expect(await disposition(named.id)).toBe(
			`attachment; filename="Rechnung _M_rz_ 100_.pdf"; filename*=UTF-8''Rechnung%20%22M%C3%A4rz%22%20100%25.pdf`,
		);
		expect(await disposition(unnamed.id)).toBe(`attachment; filename="${unnamed.id}.xml"`);
		expect(await disposition(odd.id)).toBe(`attachment; filename="${odd.id}.bin"`);
	});

	it("answers any Accept header with the payload's own type, while the JSON routes still refuse one without JSON", async () => {
		const { key: pdfKey } = await putPayload("payloads/b.pdf", bytesStream(new Uint8Array([0x25, 0x50, 0x44, 0x46])));
		const m = await storeMessage(t, owner, { payloadKey: pdfKey, contentType: "application/pdf" });
		const pdf = await get(`/v1/messages/${m.id}/payload`, key, { accept: "application/pdf" });
		expect(pdf.status).toBe(200);
		expect(pdf.headers.get("content-type")).toBe("application/pdf");
		expect((await get(`/v1/messages/${m.id}`, key, { accept: "application/pdf" })).status).toBe(406);
		expect((await get("/v1/messages", key, { accept: "text/html" })).status).toBe(406);
	});

	it("answers HEAD with the headers alone", async () => {
		const { key: c } = await putPayload("payloads/c", bytesStream(new Uint8Array(10)));
		const m = await storeMessage(t, owner, { payloadKey: c });
		const response = await t.app.request(`/v1/messages/${m.id}/payload`, {
			method: "HEAD",
			headers: { authorization: `Bearer ${key}` },
		});
		expect(response.status).toBe(200);
		expect(response.headers.get("content-length")).toBe("10");
		expect(await response.text()).toBe("");
	});

	it("streams a multi-megabyte payload byte for byte, in many chunks rather than one buffer", async () => {
		const size = 12 * 1024 * 1024 + 13;
		const stored = await putPayload("payloads/big.bin", patternStream(size));
		const m = await storeMessage(t, owner, {
			payloadKey: "payloads/big.bin",
			contentType: "application/zip",
			filename: "big.zip",
			bytes: size,
		});
		const response = await t.app.request(`/v1/messages/${m.id}/payload`, {
			headers: { authorization: `Bearer ${key}` },
		});
		expect(response.headers.get("content-length")).toBe(String(size));
		const hash = createHash("sha256");
		const expected = createHash("sha256");
		const reader = response.body!.getReader();
		let received = 0;
		let chunks = 0;
		for (;;) {
			const { done, value } = await reader.read();
			if (done) break;
			hash.update(value);
			received += value.byteLength;
			chunks++;
		}
		const source = patternStream(size).getReader();
		for (;;) {
			const { done, value } = await source.read();
			if (done) break;
			expected.update(value);
		}
		expect(received).toBe(size);
		expect(hash.digest("hex")).toBe(stored.sha256);
		expect(stored.sha256).toBe(expected.digest("hex"));
		// The body arrives as the file is read, not as one buffer of the whole payload.
		expect(chunks).toBeGreaterThan(10);
	});

	it("answers 404 for another tenant's message, a message without a payload, and a payload no longer stored", async () => {
		await putPayload("payloads/theirs", bytesStream(new Uint8Array([9])));
		const theirs = await storeMessage(t, other, { payloadKey: "payloads/theirs" });
		const none = await storeMessage(t, owner, { payloadKey: null });
		const gone = await storeMessage(t, owner, { payloadKey: "payloads/deleted" });
		for (const m of [theirs, none, gone]) {
			const response = await get(`/v1/messages/${m.id}/payload`, key, { accept: "application/octet-stream" });
			expect(response.status, m.id).toBe(404);
			expect(response.headers.get("content-type")).toMatch(/^application\/json/);
			expect(response.json.error).toMatchObject({ type: "resource_error", code: "NOT_FOUND" });
		}
		const partnersOnly = await createKey(t, owner.token, {
			scope: "tenant",
			tenant_id: owner.tenantId,
			permissions: ["partners:read"],
		});
		expect((await get(`/v1/messages/${none.id}/payload`, partnersOnly)).status).toBe(403);
	});
});

describe("OpenAPI", () => {
	it("documents the list's filters and total_exact, and the download as binary with its headers", async () => {
		const doc = (await t.call("GET", "/openapi.json")).json;
		const list = doc.paths["/v1/messages"].get;
		expect(list.parameters.map((p: { name: string }) => p.name).sort()).toEqual(
			[
				"content_type",
				"direction",
				"encrypted",
				"environment",
				"from_date",
				"has_errors",
				"mdn_status",
				"page",
				"partner_id",
				"per_page",
				"search",
				"signed",
				"status",
				"to_date",
			].sort(),
		);
		const pagination = list.responses["200"].content["application/json"].schema.properties.pagination;
		expect(pagination.required).toContain("total_exact");
		const download = doc.paths["/v1/messages/{message_id}/payload"].get.responses["200"];
		expect(download.content["*/*"].schema).toMatchObject({ type: "string", format: "binary" });
		expect(Object.keys(download.headers).sort()).toEqual([
			"Content-Disposition",
			"Content-Length",
			"X-Payload-Compressed",
			"X-Payload-Encrypted",
		]);
		const detail = doc.paths["/v1/messages/{message_id}"].get.responses["200"].content["application/json"].schema;
		expect(detail.properties.data.required).toContain("mdn_data");
	});
});
