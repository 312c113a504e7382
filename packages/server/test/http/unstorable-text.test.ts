/**
 * Text PostgreSQL cannot store (NUL, U+0000) that arrives through the AS2 edge, where no
 * request validation stands in front of the store (issue #16): never a 500, never the
 * database's own words. Runs on SQLite ("all") and on PostgreSQL ("rest-on-postgresql"), where
 * the adapter answers such a value with a 422 naming `request` (storage-pg connection.ts).
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
let as2To: string;
let key: string;
beforeEach(async () => {
	t = createTestApp();
	const owner = await register(t, "Receiver");
	key = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "live",
		permissions: ["*"],
	});
	await t.call("POST", "/v1/partners", {
		token: key,
		body: { name: "Sender", as2_id: "SENDER", url: "https://sender.example/as2", sign: false, encrypt: false },
	});
	as2To = (await t.call("GET", `/v1/tenants/${owner.tenantId}`, { token: owner.token })).json.data.as2_id;
});
afterEach(() => t.close());

const post = (path: string, headers: Record<string, string>, body: string) =>
	t.app.request(path, { method: "POST", headers: { "as2-from": "SENDER", "as2-to": as2To, ...headers }, body });

it("stores an inbound file name holding NUL (RFC 2231 %00) with U+FFFD in its place, on every store", async () => {
	const response = await post(
		"/as2/receive",
		{
			"message-id": "<nul-filename@sender.example>",
			"content-type": "application/edi-x12",
			"content-disposition": "attachment; filename*=UTF-8''order%00.x12",
			"disposition-notification-to": "as2@sender.example",
		},
		"ISA*00~",
	);
	const mdn = await response.text();
	expect(response.status).toBe(200);
	expect(mdn).toMatch(/Disposition: automatic-action\/MDN-sent-automatically; processed/);
	expect(mdn).not.toMatch(/invalid byte sequence|0x00|UTF8|processed\/error/);
	const [inbound] = (await t.call("GET", "/v1/messages?direction=inbound", { token: key })).json.data;
	const detail = (await t.call("GET", `/v1/messages/${inbound.id}`, { token: key })).json.data;
	expect(detail).toMatchObject({ status: "received", filename: "order\ufffd.x12" });
});

it("answers an MDN whose Original-Message-ID holds NUL as one for no message of ours: 404 on every store", async () => {
	const response = await post(
		"/as2/mdn",
		{
			"message-id": "<mdn-nul@sender.example>",
			"content-type": "multipart/report; report-type=disposition-notification; boundary=b",
		},
		[
			"--b",
			"Content-Type: text/plain",
			"",
			"receipt",
			"--b",
			"Content-Type: message/disposition-notification",
			"",
			"Reporting-UA: sender",
			"Original-Message-ID: <a\u0000b@as2kit.example>",
			"Disposition: automatic-action/MDN-sent-automatically; processed",
			"",
			"--b--",
			"",
		].join("\r\n"),
	);
	expect(response.status).toBe(404);
});
