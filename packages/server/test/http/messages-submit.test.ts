import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeCertificates } from "../helpers/certs.ts";
import { liveBlobsUnder } from "../helpers/live-blobs.ts";
import { createKey, createTestApp, liveTenantWithBuyer, register, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
let owner: Awaited<ReturnType<typeof liveTenantWithBuyer>>["owner"];
let key: string;
const partnerCert = makeCertificates().selfSigned("submit-partner").certPem;

beforeEach(async () => {
	t = createTestApp();
	({ owner, key } = await liveTenantWithBuyer(t, "Submitter"));
});
afterEach(() => t.close());

const send = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
	t.call("POST", "/v1/messages", {
		token: key,
		headers,
		body: { partner_id: "prt_000001", content_type: "application/edi-x12", payload: { content: "ISA*00*~" }, ...body },
	});

describe("POST /v1/messages (JSON)", () => {
	it("answers 202 with the spec's shape, applies the partner's defaults, writes message.queued and the send job", async () => {
		const response = await send({ subject: "Order 1", priority: "high" });
		expect(response.status).toBe(202);
		expect(response.json).toEqual({
			message: expect.any(String),
			data: {
				id: "msg_000001",
				message_id: expect.stringMatching(/^[^<>\s]+@as2kit\.local$/),
				partner: { id: "prt_000001", name: "Buyer", as2_id: "BUYER" },
				status: "queued",
				direction: "outbound",
				subject: "Order 1",
				content_type: "application/edi-x12",
				bytes: 8,
				compressed: false,
				encrypted: false,
				signed: false,
				mdn_mode: "async",
				created_at: "2026-03-01T09:00:00.000000Z",
			},
		});
		const [job] = await t.store.jobs.list({ kind: "message.send" });
		expect(job).toMatchObject({ payload: { messageId: "msg_000001" }, priority: 20 });
		const [event] = await t.store.events.list({ accountId: owner.accountId, kind: "message.queued" });
		expect(Object.keys(event!.data).sort()).toEqual(
			[
				"attempts",
				"bytes",
				"content_type",
				"created_at",
				"direction",
				"id",
				"message_id",
				"partner",
				"status",
				"subject",
			].sort(),
		);
	});

	it("decodes base64 by the content-type table and keeps utf-8 text exact", async () => {
		const pdf = Buffer.from("%PDF-1.4 binary \x00\xff");
		await send({ content_type: "application/pdf", payload: { content: pdf.toString("base64"), filename: "a.pdf" } });
		await send({ content_type: "text/plain", payload: { content: "héllo\r\nwörld" } });
		const read = async (id: string) => {
			const m = await t.store.messages.get(owner.tenantId, id);
			return Buffer.from(await new Response(await t.service.deps.blobs.get(m!.payloadKey!)).arrayBuffer());
		};
		expect((await read("msg_000001")).equals(pdf)).toBe(true);
		expect((await read("msg_000002")).toString("utf8")).toBe("héllo\r\nwörld");
		expect(
			(await send({ content_type: "application/zip", payload: { content: "not base64!!" } })).json.errors,
		).toHaveProperty("payload.content");
	});

	it("lets the message override sign/encrypt/compress/mdn_mode, and checks the certificates they need", async () => {
		const noCert = await send({ encrypt: true });
		expect(noCert.status).toBe(400);
		expect(noCert.json.error).toMatchObject({ type: "certificate_error", code: "ENCRYPTION_FAILED" });
		await t.call("POST", "/v1/partners/prt_000001/certificates", {
			token: key,
			body: { name: "p", usage: "encryption", certificate: partnerCert },
		});
		const ok = await send({ encrypt: true, sign: true, compress: true, mdn_mode: "sync" });
		expect(ok.json.data).toMatchObject({ encrypted: true, signed: true, compressed: true, mdn_mode: "sync" });
		const identity = (await t.call("GET", "/v1/certificates?type=identity", { token: key })).json.data[0].id;
		await t.call("POST", `/v1/certificates/${identity}/deactivate`, { token: key });
		expect((await send({ sign: true })).json.error.code).toBe("SIGNING_FAILED");
	});

	it("encrypts only to a certificate whose usage allows it: a signing-only one answers ENCRYPTION_FAILED", async () => {
		const upload = (usage: string) =>
			t.call("POST", "/v1/partners/prt_000001/certificates", {
				token: key,
				body: { name: usage, usage, certificate: partnerCert },
			});
		expect((await upload("signing")).status).toBe(201);
		const refused = await send({ encrypt: true });
		expect(refused.status).toBe(400);
		expect(refused.json.error).toMatchObject({ type: "certificate_error", code: "ENCRYPTION_FAILED" });
		expect((await upload("both")).status).toBe(201);
		expect((await send({ encrypt: true })).status).toBe(202);
	});

	it("answers CERTIFICATE_EXPIRED when the only encryption certificate has expired", async () => {
		const expired = makeCertificates().selfSigned("expired-partner", {
			validity: { from: new Date("2001-01-01Z"), to: new Date("2002-01-01Z") },
		});
		await t.call("POST", "/v1/partners/prt_000001/certificates", {
			token: key,
			body: { name: "old", usage: "both", certificate: expired.certPem },
		});
		const response = await send({ encrypt: true });
		expect(response.status).toBe(400);
		expect(response.json.error.code).toBe("CERTIFICATE_EXPIRED");
	});

	it.each([
		["an unknown partner", { partner_id: "prt_999999" }, 404, "PARTNER_NOT_FOUND"],
		["a malformed content type", { content_type: "not a type" }, 400, "INVALID_CONTENT_TYPE"],
		["an empty payload", { payload: { content: "" } }, 422, "VALIDATION_FAILED"],
		["a scheduled_at in the past", { scheduled_at: "2020-01-01T00:00:00Z" }, 422, "VALIDATION_FAILED"],
		["an engine-owned header", { headers: { "AS2-To": "x" } }, 422, "VALIDATION_FAILED"],
		["a bad priority", { priority: "urgent" }, 422, "VALIDATION_FAILED"],
	])("refuses %s", async (_, body, status, code) => {
		const response = await send(body);
		expect(response.status, response.text).toBe(status);
		expect(response.json.error.code).toBe(code);
	});

	it("refuses a deactivated partner with 400 PARTNER_INACTIVE and a deleted one with 404 PARTNER_NOT_FOUND", async () => {
		await t.call("POST", "/v1/partners/prt_000001/deactivate", { token: key });
		expect((await send({})).json.error).toMatchObject({ type: "transmission_error", code: "PARTNER_INACTIVE" });
		await t.call("DELETE", "/v1/partners/prt_000001", { token: key });
		const gone = await send({});
		expect(gone.status).toBe(404);
		expect(gone.json.error.code).toBe("PARTNER_NOT_FOUND");
	});

	it("schedules with scheduled_at and orders high before normal before low", async () => {
		await send({ priority: "low" });
		await send({ priority: "high" });
		await send({ scheduled_at: "2026-03-01T10:00:00Z" });
		await send({});
		const claimed = await t.store.jobs.claim({
			kinds: ["message.send"],
			workerId: "w",
			leaseMs: 1000,
			limit: 10,
			now: t.clock.now(),
		});
		expect(claimed.map((j) => j.payload.messageId)).toEqual(["msg_000002", "msg_000004", "msg_000001"]);
		for (const job of claimed) await t.store.jobs.complete(job.id, "w");
		const later = await t.store.jobs.claim({
			kinds: ["message.send"],
			workerId: "w",
			leaseMs: 1000,
			limit: 10,
			now: new Date("2026-03-01T10:00:00Z"),
		});
		expect(later.map((j) => j.payload.messageId)).toEqual(["msg_000003"]);
	});

	it("counts live messages and refuses past the monthly allowance with 402 MESSAGE_LIMIT_EXCEEDED and billing events", async () => {
		const counter = { accountId: owner.accountId, period: "2026-03", metric: "live_messages" };
		await t.store.usage.increment({ ...counter, by: 749 });
		expect((await send({})).status).toBe(202);
		const kinds = async () =>
			(await t.store.events.list({ accountId: owner.accountId }))
				.map((e) => e.kind)
				.filter((k) => k.startsWith("billing."));
		expect(await kinds()).toEqual(["billing.usage_threshold"]);
		const [threshold] = await t.store.events.list({ accountId: owner.accountId, kind: "billing.usage_threshold" });
		expect(threshold?.data).toEqual({
			account_id: owner.accountId,
			threshold_percentage: 75,
			current_usage: 750,
			plan_limit: 1000,
			usage_type: "live_messages",
			billing_period: { start: "2026-03-01T00:00:00.000000Z", end: "2026-03-31T23:59:59.999000Z" },
		});
		await t.store.usage.increment({ ...counter, by: 249 });
		expect((await send({})).status).toBe(202);
		const over = await send({});
		expect(over.status).toBe(402);
		expect(over.json.error).toMatchObject({ type: "billing_error", code: "MESSAGE_LIMIT_EXCEEDED" });
		expect(await kinds()).toEqual([
			"billing.usage_threshold",
			"billing.usage_threshold",
			"billing.usage_threshold",
			"billing.limit_exceeded",
		]);
		// Test keys are free and never counted.
		const testKey = await createKey(t, owner.token, {
			scope: "tenant",
			tenant_id: owner.tenantId,
			environment: "test",
			permissions: ["*"],
		});
		const free = await t.call("POST", "/v1/messages", {
			token: testKey,
			body: { partner_id: "prt_000001", content_type: "text/plain", payload: { content: "x" } },
		});
		expect(free.status).toBe(202);
	});

	it("refuses a JSON payload over the plan's size with 413 PAYLOAD_TOO_LARGE", async () => {
		const small = createTestApp();
		try {
			const o = await register(small);
			await small.call("POST", "/v1/partners", {
				token: o.token,
				body: { name: "B", as2_id: "B", url: "https://b.example" },
			});
			await small.store.accounts.update(o.accountId, { plan: "free", updatedAt: small.clock.now() });
			const big = Buffer.alloc(8 * 1024 * 1024, 1).toString("base64");
			const response = await small.call("POST", "/v1/messages", {
				token: o.token,
				body: { partner_id: "prt_000001", content_type: "application/zip", payload: { content: big } },
			});
			expect(response.status).toBe(202);
			const huge = await small.call("POST", "/v1/messages", {
				token: o.token,
				body: `{"partner_id":"prt_000001","content_type":"text/plain","payload":{"content":"${"x".repeat(17 * 1024 * 1024)}"}}`,
			});
			expect(huge.status).toBe(413);
			expect(huge.json.error.code).toBe("REQUEST_TOO_LARGE");
		} finally {
			await small.close();
		}
	});
});

describe("POST /v1/messages (multipart/form-data)", () => {
	const form = (fields: Record<string, string>, file?: Blob, filename = "po.edi") => {
		const data = new FormData();
		for (const [k, v] of Object.entries(fields)) data.append(k, v);
		if (file) data.append("file", file, filename);
		return data;
	};
	const upload = (data: FormData) =>
		t.app.request("/v1/messages", { method: "POST", body: data, headers: { authorization: `Bearer ${key}` } });

	it("streams the file part into the blob store, fields in any order", async () => {
		const data = new FormData();
		data.append("file", new Blob(["UNA:+.? 'UNB+UNOC:3'"], { type: "application/edifact" }), "order.edi");
		data.append("partner_id", "prt_000001");
		data.append("content_type", "application/edifact");
		data.append("subject", "Multipart order");
		data.append("priority", "low");
		data.append("headers", JSON.stringify({ "X-Trace": "abc" }));
		data.append("sign", "false");
		const response = await upload(data);
		expect(response.status).toBe(202);
		const body = (await response.json()) as {
			data: { id: string; content_type: string; bytes: number; subject: string };
		};
		expect(body.data).toMatchObject({ content_type: "application/edifact", bytes: 20, subject: "Multipart order" });
		const stored = await t.store.messages.get(owner.tenantId, body.data.id);
		expect(stored).toMatchObject({ filename: "order.edi", priority: "low", headers: { "X-Trace": "abc" } });
		const bytes = await new Response(await t.service.deps.blobs.get(stored!.payloadKey!)).text();
		expect(bytes).toBe("UNA:+.? 'UNB+UNOC:3'");
	});

	it("requires the file part and a partner, and keeps no blob of a refused upload", async () => {
		const missingFile = await upload(form({ partner_id: "prt_000001", content_type: "text/plain" }));
		expect(missingFile.status).toBe(422);
		const noPartner = await upload(form({ content_type: "text/plain" }, new Blob(["x"])));
		expect(noPartner.status).toBe(422);
		const unknown = await upload(form({ partner_id: "prt_999999", content_type: "text/plain" }, new Blob(["x"])));
		expect(unknown.status).toBe(404);
		expect(await t.store.messages.list(owner.tenantId, {}, { page: 1, perPage: 10 })).toMatchObject({ total: 0 });
	});

	it("stops with 413 PAYLOAD_TOO_LARGE as soon as the plan's size is crossed, reading no further", async () => {
		await t.store.accounts.update(owner.accountId, { plan: "free", updatedAt: t.clock.now() });
		const limit = 50 * 1024 * 1024;
		let produced = 0;
		const chunk = new Uint8Array(1024 * 1024).fill(65);
		const boundary = "----as2kit-test-boundary";
		const head = new TextEncoder().encode(
			`--${boundary}\r\nContent-Disposition: form-data; name="partner_id"\r\n\r\nprt_000001\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
		);
		// 200 MB offered; the server must give up right after 50 MB.
		const body = new ReadableStream<Uint8Array>({
			start(controller) {
				controller.enqueue(head);
			},
			pull(controller) {
				if (produced >= 200 * 1024 * 1024) {
					controller.enqueue(new TextEncoder().encode(`\r\n--${boundary}--\r\n`));
					controller.close();
					return;
				}
				produced += chunk.byteLength;
				controller.enqueue(chunk);
			},
		});
		const response = await t.app.request("/v1/messages", {
			method: "POST",
			body,
			headers: { authorization: `Bearer ${key}`, "content-type": `multipart/form-data; boundary=${boundary}` },
			// @ts-expect-error Node's fetch needs duplex for a streamed request body
			duplex: "half",
		});
		expect(response.status).toBe(413);
		expect(((await response.json()) as { error: { code: string } }).error.code).toBe("PAYLOAD_TOO_LARGE");
		expect(produced).toBeGreaterThan(limit);
		expect(produced).toBeLessThan(limit + 8 * 1024 * 1024);
	});

	// Issue #16: curl sends Expect: 100-continue with a large -F upload; the 413 must come before
	// the body is asked for (node/early-answers.ts), so from Content-Length alone.
	it("answers 413 PAYLOAD_TOO_LARGE before reading a byte when Content-Length leaves no room under the plan's size", async () => {
		await t.store.accounts.update(owner.accountId, { plan: "free", updatedAt: t.clock.now() });
		const boundary = "----as2kit-test-boundary";
		let pulled = 0;
		const body = new ReadableStream<Uint8Array>({
			pull(controller) {
				pulled++;
				controller.enqueue(new TextEncoder().encode(`--${boundary}\r\n`));
			},
		});
		const response = await t.app.request("/v1/messages", {
			method: "POST",
			body,
			headers: {
				authorization: `Bearer ${key}`,
				"content-type": `multipart/form-data; boundary=${boundary}`,
				// 50 MB of file and 8 MB of anything else is more than a form may hold.
				"content-length": String(58 * 1024 * 1024),
			},
			// @ts-expect-error Node's fetch needs duplex for a streamed request body
			duplex: "half",
		});
		expect(response.status).toBe(413);
		expect(((await response.json()) as { error: { code: string } }).error.code).toBe("PAYLOAD_TOO_LARGE");
		// A ReadableStream pulls once on its own to fill its queue; the server read nothing of it.
		expect(pulled).toBeLessThanOrEqual(1);
	});
});

// Issue #16, defect 7: what curl, browsers and hand-made clients send as multipart uploads.
describe("POST /v1/messages: uploads as clients send them", () => {
	const boundary = "----as2kit-upload-boundary";
	/** A form written by hand (sent as UTF-8, as curl and browsers write a part's head). */
	const rawForm = (parts: { head: string; body: string }[], close = `--${boundary}--\r\n`) =>
		`${parts.map(({ head, body }) => `--${boundary}\r\n${head}\r\n\r\n${body}\r\n`).join("")}${close}`;
	const field = (name: string, value: string) => ({
		head: `Content-Disposition: form-data; name="${name}"`,
		body: value,
	});
	const filePart = (filename: string, body = "ISA*00*~") => ({
		head: `Content-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream`,
		body,
	});
	const post = (body: string, contentType = `multipart/form-data; boundary=${boundary}`) =>
		t.call("POST", "/v1/messages", { token: key, body, headers: { "content-type": contentType } });
	const messages = async () => (await t.store.messages.list(owner.tenantId, {}, { page: 1, perPage: 10 })).total;
	const blobs = () => liveBlobsUnder(t.blobDir);

	it("stores a UTF-8 file name as sent, and downloads it under RFC 8187 filename*", async () => {
		const name = "Bestellung Müller 注文.x12";
		const response = await post(
			rawForm([field("partner_id", "prt_000001"), field("content_type", "application/edi-x12"), filePart(name)]),
		);
		expect(response.status).toBe(202);
		const stored = await t.store.messages.get(owner.tenantId, response.json.data.id);
		expect(stored?.filename).toBe(name);
		const download = await t.app.request(`/v1/messages/${response.json.data.id}/payload`, {
			headers: { authorization: `Bearer ${key}` },
		});
		expect(download.headers.get("content-disposition")).toBe(
			`attachment; filename="Bestellung M_ller __.x12"; filename*=UTF-8''${encodeURIComponent(name)}`,
		);
	});

	it("refuses a 0-byte file and an empty base64 payload with 422, like an empty payload.content", async () => {
		const empty = await post(
			rawForm([field("partner_id", "prt_000001"), field("content_type", "text/plain"), filePart("a.txt", "")]),
		);
		expect(empty.status).toBe(422);
		expect(empty.json.errors).toEqual({ file: ["must not be empty"] });
		const padding = await send({ content_type: "application/pdf", payload: { content: "==" } });
		expect(padding.status).toBe(422);
		expect(padding.json.errors).toEqual({ "payload.content": ["must not be empty"] });
		expect(await messages()).toBe(0);
		expect(blobs()).toEqual([]);
	});

	it("requires content_type in a multipart send, as in JSON (the file part's own type does not stand in)", async () => {
		const response = await post(rawForm([field("partner_id", "prt_000001"), filePart("a.x12")]));
		expect(response.status).toBe(422);
		expect(response.json.errors).toEqual({ content_type: ["is required"] });
		expect(blobs()).toEqual([]);
	});

	it("answers 400 INVALID_CONTENT_TYPE for a type outside the spec's list, in JSON and multipart alike", async () => {
		for (const type of ["application/x-msdownload", "application/octet-stream", "text/html"]) {
			const json = await send({ content_type: type, payload: { content: "TVqQAAMAAAAEAAAA", encoding: "base64" } });
			expect(json.status, type).toBe(400);
			expect(json.json.error).toMatchObject({ type: "validation_error", code: "INVALID_CONTENT_TYPE" });
			const form = await post(rawForm([field("partner_id", "prt_000001"), field("content_type", type), filePart("x")]));
			expect(form.status, type).toBe(400);
			expect(form.json.error).toMatchObject({ type: "validation_error", code: "INVALID_CONTENT_TYPE" });
		}
		// Parameters and case do not matter; the other listed types pass.
		for (const type of ["Application/EDI-X12; charset=utf-8", "application/edi-consent", "image/png"]) {
			expect((await send({ content_type: type, payload: { content: "AAAA", encoding: "base64" } })).status).toBe(202);
		}
		expect(await messages()).toBe(3);
		expect(blobs()).toHaveLength(3);
	});

	it.each([
		[
			"a wrong boundary",
			rawForm([field("partner_id", "prt_000001")]),
			"multipart/form-data; boundary=other",
			/boundary/,
		],
		[
			"an unterminated body",
			rawForm([field("partner_id", "prt_000001"), field("content_type", "text/plain"), filePart("a.txt")], ""),
			undefined,
			/close delimiter/,
		],
		[
			"more than 100 parts",
			rawForm(Array.from({ length: 101 }, (_, i) => field(`f${i}`, "x"))),
			undefined,
			/more than 100 parts/,
		],
		[
			"oversized part headers",
			rawForm([{ head: `Content-Disposition: form-data; name="a"\r\nX-Pad: ${"p".repeat(20_000)}`, body: "x" }]),
			undefined,
			/header block is longer/,
		],
		["no boundary at all", rawForm([]), "multipart/form-data", /boundary/],
	])("answers 422 validation_error naming the problem for %s, and keeps no blob", async (_, body, type, problem) => {
		const response = await post(body, type);
		expect(response.status).toBe(422);
		expect(response.json.error).toMatchObject({ type: "validation_error", code: "VALIDATION_FAILED" });
		expect(response.json.errors.request[0]).toMatch(problem);
		expect(blobs()).toEqual([]);
	});
});
