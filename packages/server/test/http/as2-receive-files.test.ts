import { readdirSync, readlinkSync } from "node:fs";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

/**
 * Issue #16, audit of every stream: an inbound message stored as a raw blob (over 1 MiB) that
 * unpack refuses partway must not keep the blob's file open. It did for CMS garbage: one
 * descriptor per message, and the disk space of the deleted blob with it, until the process
 * ended — a hostile sender could exhaust both.
 */
let t: TestApp;
let as2To: string;
beforeEach(async () => {
	t = createTestApp();
	const owner = await register(t, "Receiver");
	const key = await createKey(t, owner.token, {
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

/** This process's descriptors open on files under the blob directory (deleted ones included). */
const openBlobFiles = () =>
	readdirSync("/proc/self/fd").filter((fd) => {
		try {
			return readlinkSync(`/proc/self/fd/${fd}`).startsWith(t.blobDir);
		} catch {
			return false;
		}
	});

it("releases the raw blob's file of every message it refuses, however far it read", async () => {
	const bodies: [string, string][] = [
		["application/pkcs7-mime; smime-type=enveloped-data", "garbage".repeat(300_000)],
		["application/pkcs7-mime; smime-type=compressed-data", "garbage".repeat(300_000)],
		[
			'multipart/signed; boundary=b; protocol="application/pkcs7-signature"; micalg=sha-256',
			`--b\r\nContent-Type: text/plain\r\n\r\n${"x".repeat(2_000_000)}`,
		],
	];
	for (const [index, [type, body]] of bodies.entries()) {
		for (let i = 0; i < 5; i++) {
			const response = await t.app.request("/as2/receive", {
				method: "POST",
				headers: {
					"as2-from": "SENDER",
					"as2-to": as2To,
					"message-id": `<hostile-${index}-${i}@sender.example>`,
					"content-type": type,
					"content-length": String(body.length),
					// A sync MDN: processed within the request, its answer says how it ended.
					"disposition-notification-to": "as2@sender.example",
				},
				body,
			});
			expect(await response.text()).toMatch(/processed\/error/);
		}
	}
	// Closing a file is asynchronous: wait for it, bounded.
	const deadline = Date.now() + 10_000;
	while (openBlobFiles().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
	expect(openBlobFiles()).toEqual([]);
});
