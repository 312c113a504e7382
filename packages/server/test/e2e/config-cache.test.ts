import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createFsBlobStore } from "../../src/blobs/fs-blob-store.ts";
import { CONFIG_CACHE_TTL_MS } from "../../src/service/config-cache/versioned-cache.ts";
import { createService } from "../../src/service/create-service.ts";
import { FAN_OUT_JOB } from "../../src/service/webhooks/job-kinds.ts";
import { makeCertificates } from "../helpers/certs.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

/**
 * Issue #20: the configuration each message reads (certificates, the effective partner, the
 * account, whether webhooks listen) is remembered for a second (service/config-cache/). A
 * change made on this instance is seen by the very next message; one made on another instance
 * within CONFIG_CACHE_TTL_MS. Each test first sends a message, so the old value is remembered.
 */
let t: TestApp;
let owner: Awaited<ReturnType<typeof register>>;
let tenantKey: string;
let accountKey: string;
const certs = makeCertificates();
const partnerOld = certs.selfSigned("config-cache-old").certPem;
const partnerNew = certs.selfSigned("config-cache-new").certPem;

beforeAll(async () => {
	t = createTestApp({ defaultPlan: "professional" });
	owner = await register(t, "Cached Config");
	tenantKey = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "live",
		permissions: ["*"],
	});
	accountKey = await createKey(t, owner.token, { scope: "account", environment: "live", permissions: ["*"] });
});
afterAll(() => t.close());

const send = (partnerId: string, body: Record<string, unknown> = {}) =>
	t.call("POST", "/v1/messages", {
		token: tenantKey,
		body: { partner_id: partnerId, content_type: "application/edi-x12", payload: { content: "ISA*00*~" }, ...body },
	});

async function addPartner(as2Id: string, body: Record<string, unknown> = {}): Promise<string> {
	const created = await t.call("POST", "/v1/partners", {
		token: tenantKey,
		body: { name: as2Id, as2_id: as2Id, url: `https://${as2Id.toLowerCase()}.example/as2`, ...body },
	});
	expect(created.status, created.text).toBe(201);
	return created.json.data.id;
}

async function uploadEncryption(partnerId: string, pem: string): Promise<string> {
	const uploaded = await t.call("POST", `/v1/partners/${partnerId}/certificates`, {
		token: tenantKey,
		body: { name: "encryption", usage: "encryption", certificate: pem },
	});
	expect(uploaded.status, uploaded.text).toBe(201);
	return uploaded.json.data.id;
}

/** The message a 202 queued, as stored. */
async function queued(response: Awaited<ReturnType<typeof send>>) {
	expect(response.status, response.text).toBe(202);
	return (await t.store.messages.get(owner.tenantId, response.json.data.id))!;
}

describe("a change on this instance, seen by the very next message", () => {
	it("a partner's only encryption certificate deactivated: the next message is refused ENCRYPTION_FAILED", async () => {
		const partner = await addPartner("DEACTIVATED", { encrypt: true });
		const certificate = await uploadEncryption(partner, partnerOld);
		await queued(await send(partner));
		const deactivated = await t.call("POST", `/v1/certificates/${certificate}/deactivate`, { token: tenantKey });
		expect(deactivated.status, deactivated.text).toBe(200);
		const refused = await send(partner);
		expect(refused.status).toBe(400);
		expect(refused.json.error).toMatchObject({ code: "ENCRYPTION_FAILED" });
	});

	it("a partner's certificate deleted and a new one uploaded: the next message is accepted", async () => {
		const partner = await addPartner("REPLACED", { encrypt: true });
		const old = await uploadEncryption(partner, partnerOld);
		await queued(await send(partner));
		expect((await t.call("DELETE", `/v1/certificates/${old}`, { token: tenantKey })).status).toBe(200);
		expect((await send(partner)).json.error).toMatchObject({ code: "ENCRYPTION_FAILED" });
		await uploadEncryption(partner, partnerNew);
		await queued(await send(partner));
	});

	it("a partner deactivated: the next message is refused PARTNER_INACTIVE", async () => {
		const partner = await addPartner("PAUSED");
		await queued(await send(partner));
		const paused = await t.call("POST", `/v1/partners/${partner}/deactivate`, { token: tenantKey });
		expect(paused.status, paused.text).toBe(200);
		expect((await send(partner)).json.error).toMatchObject({ code: "PARTNER_INACTIVE" });
	});

	it("a master partner and then the tenant's override changed: the next message uses each new URL", async () => {
		const created = await t.call("POST", `/v1/accounts/${owner.accountId}/partners`, {
			token: accountKey,
			body: { name: "Hub", as2_id: "CACHED-HUB", url: "https://hub.example/as2" },
		});
		expect(created.status, created.text).toBe(201);
		const master = created.json.data.id;
		expect((await queued(await send(master))).partnerUrl).toBe("https://hub.example/as2");
		const moved = await t.call("PATCH", `/v1/accounts/${owner.accountId}/partners/${master}`, {
			token: accountKey,
			body: { url: "https://v2.hub.example/as2" },
		});
		expect(moved.status, moved.text).toBe(200);
		expect((await queued(await send(master))).partnerUrl).toBe("https://v2.hub.example/as2");
		const overridden = await t.call("PATCH", `/v1/partners/${master}`, {
			token: accountKey,
			headers: { "x-tenant-id": owner.tenantId },
			body: { url: "https://eu.hub.example/as2" },
		});
		expect(overridden.status, overridden.text).toBe(200);
		expect((await queued(await send(master))).partnerUrl).toBe("https://eu.hub.example/as2");
		const reset = await t.call("DELETE", `/v1/partners/${master}/overrides`, {
			token: accountKey,
			headers: { "x-tenant-id": owner.tenantId },
		});
		expect(reset.status, reset.text).toBe(200);
		expect((await queued(await send(master))).partnerUrl).toBe("https://v2.hub.example/as2");
	});

	it("a webhook endpoint created: the next message's event is fanned out to it", async () => {
		const partner = await addPartner("HOOKED");
		const fanOuts = async () => (await t.store.jobs.list({ kind: FAN_OUT_JOB })).length;
		await queued(await send(partner));
		const before = await fanOuts();
		const endpoint = await t.call("POST", "/v1/webhook-endpoints", {
			token: tenantKey,
			body: { url: "https://hooks.example/as2kit", events: ["message.queued"], secret: "whsec_config_cache" },
		});
		expect(endpoint.status, endpoint.text).toBe(201);
		await queued(await send(partner));
		expect(await fanOuts()).toBe(before + 1);
	});
});

describe("a change on another instance", () => {
	/** A second instance on the same database, with its own cache, submitting to `partnerId`. */
	async function otherInstance(partnerId: string) {
		const other = createService({
			store: t.store,
			blobs: createFsBlobStore(t.blobDir),
			now: t.clock.now,
			config: { masterKey: new Uint8Array(32).fill(7), passwordCostLog2: 10 },
		});
		const principal = await other.authenticate(tenantKey, null);
		return () =>
			other.messages.submit(principal, {
				partnerId,
				contentType: "application/edi-x12",
				payload: { bytes: new TextEncoder().encode("ISA*00*~") },
			});
	}

	it("may be unseen within the cache's bound, never past it", async () => {
		vi.useFakeTimers({ toFake: ["performance"] });
		try {
			const partner = await addPartner("ELSEWHERE", { encrypt: true });
			const certificate = await uploadEncryption(partner, partnerOld);
			const submit = await otherInstance(partner);
			await expect(submit()).resolves.toMatchObject({ status: "queued" });
			expect((await t.call("POST", `/v1/certificates/${certificate}/deactivate`, { token: tenantKey })).status).toBe(
				200,
			);
			// Within the bound the other instance may still use it (README, Running several instances)...
			await expect(submit()).resolves.toMatchObject({ status: "queued" });
			vi.advanceTimersByTime(CONFIG_CACHE_TTL_MS);
			// ...past it, never.
			await expect(submit()).rejects.toMatchObject({ code: "ENCRYPTION_FAILED" });
		} finally {
			vi.useRealTimers();
		}
	});

	it("a webhook endpoint created there: the very next event here is fanned out to it (the spec sends to each active endpoint)", async () => {
		vi.useFakeTimers({ toFake: ["performance"] });
		try {
			const submit = await otherInstance(await addPartner("HOOKED-ELSEWHERE"));
			// No endpoint listens on this account (the test above made one) in the other instance's eyes...
			for (const existing of (await t.call("GET", "/v1/webhook-endpoints", { token: tenantKey })).json.data) {
				await t.call("DELETE", `/v1/webhook-endpoints/${existing.id}`, { token: tenantKey });
			}
			const fanOuts = async () => (await t.store.jobs.list({ kind: FAN_OUT_JOB })).length;
			await submit();
			const before = await fanOuts();
			const endpoint = await t.call("POST", "/v1/webhook-endpoints", {
				token: tenantKey,
				body: { url: "https://hooks.example/elsewhere", events: ["message.queued"], secret: "whsec_config_cache" },
			});
			expect(endpoint.status, endpoint.text).toBe(201);
			// ...then one is created here: the other's next event, well within its bound, reaches it.
			await submit();
			expect(await fanOuts()).toBe(before + 1);
		} finally {
			vi.useRealTimers();
		}
	});
});
