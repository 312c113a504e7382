import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, liveTenantWithBuyer, type TestApp } from "../helpers/test-app.ts";

/**
 * What POST /v1/messages puts in the AS2 headers (issue #16, defect 8): any subject text (it
 * goes out RFC 2047-encoded), but nothing that cannot be sent — refused with 422 at submit,
 * instead of a 202 and a send that fails with INTERNAL_ERROR.
 */
let t: TestApp;
let key: string;
let tenantId: string;

beforeEach(async () => {
	t = createTestApp();
	const live = await liveTenantWithBuyer(t, "Header Submitter");
	tenantId = live.owner.tenantId;
	key = live.key;
});
afterEach(() => t.close());

const send = (body: Record<string, unknown>) =>
	t.call("POST", "/v1/messages", {
		token: key,
		body: { partner_id: "prt_000001", content_type: "application/edi-x12", payload: { content: "ISA*00*~" }, ...body },
	});

const upload = (fields: Record<string, string>) => {
	const data = new FormData();
	data.append("partner_id", "prt_000001");
	data.append("content_type", "application/edi-x12");
	for (const [name, value] of Object.entries(fields)) data.append(name, value);
	data.append("file", new Blob(["ISA*00*~"]), "po.x12");
	return t.app.request("/v1/messages", { method: "POST", body: data, headers: { authorization: `Bearer ${key}` } });
};

async function expectNothingQueued() {
	expect(await t.store.messages.list(tenantId, {}, { page: 1, perPage: 10 })).toMatchObject({ total: 0 });
}

describe("POST /v1/messages: subject, filename and custom headers", () => {
	it("accepts any subject and file name text, Latin-1 or beyond, and keeps it as given", async () => {
		const subject = "Bestellung Müller 注文 ✓ 🚚";
		const response = await send({ subject, payload: { content: "ISA*00*~", filename: "Bestellung Müller 注文.x12" } });
		expect(response.status).toBe(202);
		expect(response.json.data.subject).toBe(subject);
		const stored = await t.store.messages.get(tenantId, response.json.data.id);
		expect(stored).toMatchObject({ subject, filename: "Bestellung Müller 注文.x12" });
	});

	it("accepts printable US-ASCII custom headers", async () => {
		const response = await send({ headers: { "X-Order-Ref": "PO-4711 / batch 7", "X-Empty": "" } });
		expect(response.status).toBe(202);
		const stored = await t.store.messages.get(tenantId, response.json.data.id);
		expect(stored!.headers).toEqual({ "X-Order-Ref": "PO-4711 / batch 7", "X-Empty": "" });
	});

	it.each([
		["beyond Latin-1", "注文"],
		["Latin-1", "Müller"],
		["CR LF (header injection)", "a\r\nAS2-To: EVE"],
		["a bare LF", "a\nb"],
		["a NUL", "a\u0000b"],
		["another control character", "a\u0007b"],
		["a lone surrogate", "a\ud800b"],
	])("refuses a custom header value with %s: 422 naming headers", async (_, value) => {
		const response = await send({ headers: { "X-Ref": value } });
		expect(response.status).toBe(422);
		expect(response.json.error).toMatchObject({ type: "validation_error", code: "VALIDATION_FAILED" });
		expect(response.json.errors.headers).toEqual([expect.stringContaining("X-Ref may hold only printable US-ASCII")]);
		await expectNothingQueued();
	});

	it.each([
		["a NUL", "X-A\u0000b"],
		["a lone surrogate", "X-\udc00"],
		["a space", "X Ref"],
		["a colon", "X-Ref:"],
		["non-ASCII", "X-Réf"],
		["nothing", ""],
	])("refuses a custom header name with %s", async (_, name) => {
		const response = await send({ headers: { [name]: "v" } });
		expect(response.status).toBe(422);
		expect(response.json.errors.headers).toEqual([expect.stringContaining("is not a valid header name")]);
		// The name is quoted as JSON: no raw NUL or lone surrogate in the answer.
		// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL must not appear
		expect(response.text).not.toMatch(/[\u0000\ud800-\udfff]/);
	});

	it.each([
		"AS2-To",
		"as2-from",
		"AS2-Version",
		"Message-ID",
		"Content-Type",
		"Content-Length",
		"Content-Transfer-Encoding",
		"Disposition-Notification-To",
		"Disposition-Notification-Options",
		"Receipt-Delivery-Option",
		"Subject",
		"Transfer-Encoding",
		"Expect",
		"Connection",
	])("refuses %s as a custom header: the engine sets it", async (name) => {
		const response = await send({ headers: { [name]: "x" } });
		expect(response.status).toBe(422);
		expect(response.json.errors.headers).toEqual([`${name} is set by the AS2 engine`]);
	});

	it.each([
		["a NUL", "Order\u00001"],
		["a line break", "Order\r\nBcc: x"],
		["a tab", "Order\t1"],
		["a lone surrogate", "Order \ud83d"],
	])("refuses a subject or file name with %s", async (_, text) => {
		const subject = await send({ subject: text });
		expect(subject.status).toBe(422);
		expect(Object.keys(subject.json.errors)).toEqual(["subject"]);
		const filename = await send({ payload: { content: "ISA*00*~", filename: text } });
		expect(filename.status).toBe(422);
		expect(Object.keys(filename.json.errors)).toEqual(["filename"]);
		await expectNothingQueued();
	});

	it("names every field at fault at once", async () => {
		const response = await send({
			subject: "a\u0000",
			payload: { content: "ISA*00*~", filename: "b\u0000" },
			headers: { "AS2-To": "EVE", "X-Ref": "注文" },
		});
		expect(response.status).toBe(422);
		expect(response.json.errors).toEqual({
			subject: [expect.any(String)],
			filename: [expect.any(String)],
			headers: ["AS2-To is set by the AS2 engine", expect.stringContaining("X-Ref")],
		});
	});

	it("checks multipart fields the same way", async () => {
		const injected = await upload({ "headers[X-Ref]": "a\r\nAS2-To: EVE" });
		expect(injected.status).toBe(422);
		const json = await upload({ headers: JSON.stringify({ "X-Ref": "注文" }) });
		expect(json.status).toBe(422);
		const subject = await upload({ subject: "a\u0000b" });
		expect(subject.status).toBe(422);
		await expectNothingQueued();
		expect((await upload({ subject: "Bestellung Müller 注文 ✓" })).status).toBe(202);
	});

	it("refuses a partner's custom HTTP header that could not be sent", async () => {
		const response = await t.call("PATCH", "/v1/partners/prt_000001", {
			token: key,
			body: { http: { headers: { "X-Ref": "注文" } } },
		});
		expect(response.status).toBe(422);
		expect(response.json.errors).toHaveProperty(["http.headers"]);
	});
});
