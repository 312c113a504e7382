import type { BlobInfo, BlobStore } from "@as2kit/core/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, liveTenantKey, type TestApp } from "../helpers/test-app.ts";

/**
 * BlobStore.put returns the key to read, stat and delete a blob by, which the store chooses
 * (the fs store keys a small blob by its place in a segment file, stop 33). A store that never
 * keeps the key it is asked for: every later call with a key it did not return is a caller's
 * defect (it read, or failed to delete, another blob than the one it wrote).
 */
function renamingStore(inner: BlobStore) {
	const chosen = new Map<string, string>();
	const strangers: string[] = [];
	const deleted: string[] = [];
	const written: string[] = [];
	const innerKey = (key: string) => {
		const found = chosen.get(key);
		if (found === undefined) strangers.push(key);
		return found;
	};
	const blobs: BlobStore = {
		async put(key, body, options) {
			const info = await inner.put(key, body, options);
			const mine = `chosen/${written.length + 1}`;
			chosen.set(mine, info.key);
			written.push(mine);
			return { ...info, key: mine } satisfies BlobInfo;
		},
		async get(key) {
			const found = innerKey(key);
			return found === undefined ? null : inner.get(found);
		},
		async chunks(key) {
			const found = innerKey(key);
			return found === undefined ? null : inner.chunks!(found);
		},
		async stat(key) {
			const found = innerKey(key);
			const info = found === undefined ? null : await inner.stat(found);
			return info && { ...info, key };
		},
		async delete(key) {
			const found = innerKey(key);
			if (found === undefined) return;
			deleted.push(key);
			await inner.delete(found);
		},
	};
	return { blobs, strangers, deleted, written };
}

let t: TestApp;
let fake: ReturnType<typeof renamingStore>;
let key: string;
let partnerId: string;
let as2To: string;
let tenantId: string;
beforeEach(async () => {
	t = createTestApp({}, undefined, {
		blobs: (fs) => {
			fake = renamingStore(fs);
			return fake.blobs;
		},
	});
	const live = await liveTenantKey(t, "Receiver");
	const owner = live.owner;
	key = live.key;
	const partner = await t.call("POST", "/v1/partners", {
		token: key,
		body: { name: "Sender", as2_id: "SENDER", url: "https://sender.example/as2", sign: false, encrypt: false },
	});
	partnerId = partner.json.data.id;
	tenantId = owner.tenantId;
	as2To = (await t.call("GET", `/v1/tenants/${owner.tenantId}`, { token: owner.token })).json.data.as2_id;
});
afterEach(() => t.close());

describe("callers keep the key put returns", () => {
	it("submit, payload download and resend read the payload by the returned key", async () => {
		const submitted = await t.call("POST", "/v1/messages", {
			token: key,
			body: { partner_id: partnerId, content_type: "application/edi-x12", payload: { content: "ISA*00*~" } },
		});
		expect(submitted.status).toBe(202);
		const id = submitted.json.data.id;
		const payload = await t.call("GET", `/v1/messages/${id}/payload`, { token: key });
		expect(payload.status).toBe(200);
		expect(payload.text).toBe("ISA*00*~");
		await t.store.messages.update(id, { status: "failed" } as never);
		const resent = await t.call("POST", `/v1/messages/${id}/resend`, { token: key });
		expect(resent.status).toBe(202);
		expect((await t.call("GET", `/v1/messages/${resent.json.data.id}/payload`, { token: key })).text).toBe("ISA*00*~");
		expect(fake.strangers).toEqual([]);
	});

	it("a refused multipart upload deletes the blob it wrote", async () => {
		const boundary = "----as2kit-keys";
		const body = `--${boundary}\r\nContent-Disposition: form-data; name="partner_id"\r\n\r\nprt_999999\r\n--${boundary}\r\nContent-Disposition: form-data; name="content_type"\r\n\r\napplication/edi-x12\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.x12"\r\nContent-Type: application/octet-stream\r\n\r\nISA*00*~\r\n--${boundary}--\r\n`;
		const response = await t.call("POST", "/v1/messages", {
			token: key,
			body,
			headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
		});
		expect(response.status, response.text).toBe(404);
		expect(fake.written).toHaveLength(1);
		expect(fake.deleted).toEqual(fake.written);
		expect(fake.strangers).toEqual([]);
	});

	it("an inbound duplicate deletes the payload it stored, by the key it was given", async () => {
		const receive = () =>
			t.app.request("/as2/receive", {
				method: "POST",
				headers: {
					"as2-from": "SENDER",
					"as2-to": as2To,
					"message-id": "<same-id@sender.example>",
					"content-type": "application/edi-x12",
					"disposition-notification-to": "as2@sender.example",
				},
				body: "ISA*00*~",
			});
		expect(await (await receive()).text()).toMatch(/processed/);
		const firstWrites = fake.written.length;
		const firstDeletes = fake.deleted.length;
		// The duplicate: its payload is stored, then deleted when the insert finds the first.
		expect(await (await receive()).text()).toMatch(/processed/);
		const inbound = await t.store.messages.list(tenantId, { direction: "inbound" }, { page: 1, perPage: 10 });
		expect(inbound.total).toBe(1);
		const payloads = await Promise.all(
			fake.written.slice(firstWrites).map(async (k) => [k, await t.service.deps.blobs.stat(k)]),
		);
		expect(fake.deleted.length).toBeGreaterThan(firstDeletes);
		for (const k of fake.deleted.slice(firstDeletes))
			expect(payloads.find(([written]) => written === k)?.[1], k).toBeNull();
		expect(fake.strangers).toEqual([]);
	});
});
