/**
 * Account-level events (account.*, tenant.*, billing.*) tell about every tenant of the
 * account, so only endpoints a credential reaching the whole account subscribed receive them
 * (issue #16, defect 3 "no key may reach further than its grant"; README, Webhooks).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createKey } from "../helpers/test-app.ts";
import { type Receiver, startReceiver, waitFor } from "../helpers/webhook-receiver.ts";
import { createWebhookWorld, type WebhookWorld } from "../helpers/webhook-world.ts";

let w: WebhookWorld;
let r: Receiver;
afterEach(async () => {
	await w?.close();
	await r?.close();
});

/** A world whose first tenant has a tenant key and an account key restricted to it, and a second tenant. */
async function world() {
	w = await createWebhookWorld();
	r = await startReceiver();
	const owner = w.owner.token;
	const tenantKey = await createKey(w.t, owner, { scope: "tenant", tenant_id: w.owner.tenantId, permissions: ["*"] });
	const restrictedKey = await createKey(w.t, owner, {
		scope: "account",
		permissions: ["*"],
		allowed_tenant_ids: [w.owner.tenantId],
	});
	const wholeKey = await createKey(w.t, owner, { scope: "account", permissions: ["webhooks:write", "tenants:read"] });
	const second = await w.t.call("POST", "/v1/tenants", { token: owner, body: { name: "Second" } });
	expect(second.status).toBe(201);
	return { owner, tenantKey, restrictedKey, wholeKey, secondTenant: second.json.data.id as string };
}

const call = (method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) =>
	w.t.call(method, path, { token, headers, ...(body === undefined ? {} : { body }) });

const hookPath = (q: { path: string }) => q.path.split("/").pop();

describe("account-level events reach only endpoints of the whole account's credentials", () => {
	it("refuses a tenant key or a restricted key naming an account-level kind: 403 before validation", async () => {
		const { tenantKey, restrictedKey, owner } = await world();
		for (const token of [tenantKey, restrictedKey]) {
			for (const events of [["tenant.*"], ["billing.usage_threshold"], ["account.*"], ["*", "tenant.created"]]) {
				const created = await call("POST", "/v1/webhook-endpoints", token, { url: `${r.url}/x`, events });
				expect(created.status, JSON.stringify(events)).toBe(403);
				expect(created.json.error).toMatchObject({ type: "authorization_error", code: "insufficient_scope" });
				expect(created.json.error.message).toContain("account-level events");
			}
			// An invalid URL and secret do not change the answer: authorization comes first.
			const invalid = await call("POST", "/v1/webhook-endpoints", token, {
				url: "ftp://x",
				events: ["tenant.*"],
				secret: "short",
			});
			expect([invalid.status, invalid.json.error.code]).toEqual([403, "insufficient_scope"]);
			// As a form too, where a single `events` is a string.
			const form = await w.t.call("POST", "/v1/webhook-endpoints", {
				token,
				body: new URLSearchParams({ url: "ftp://x", events: "billing.*" }).toString(),
				headers: { "content-type": "application/x-www-form-urlencoded" },
			});
			expect(form.status).toBe(403);
		}
		// Its own endpoint cannot be changed to subscribe to them either.
		const own = await call("POST", "/v1/webhook-endpoints", tenantKey, { url: `${r.url}/own`, events: ["*"] });
		expect(own.status).toBe(201);
		const patched = await call("PATCH", `/v1/webhook-endpoints/${own.json.data.id}`, tenantKey, {
			events: ["tenant.*"],
			url: "nope",
		});
		expect([patched.status, patched.json.error.code]).toEqual([403, "insufficient_scope"]);
		// The owner may.
		expect(
			(await call("POST", "/v1/webhook-endpoints", owner, { url: `${r.url}/o`, events: ["tenant.*"] })).status,
		).toBe(201);
	});

	it("delivers tenant.created to the owner's * endpoint, never to a tenant key's, which still gets message events", async () => {
		const { owner, tenantKey, restrictedKey, wholeKey } = await world();
		const byOwner = await call("POST", "/v1/webhook-endpoints", owner, { url: `${r.url}/owner`, events: ["*"] });
		const byWholeKey = await call("POST", "/v1/webhook-endpoints", wholeKey, {
			url: `${r.url}/whole-key`,
			events: ["tenant.*"],
		});
		const byTenantKey = await call("POST", "/v1/webhook-endpoints", tenantKey, {
			url: `${r.url}/tenant-key`,
			events: ["*"],
		});
		const byRestricted = await call("POST", "/v1/webhook-endpoints", restrictedKey, {
			url: `${r.url}/restricted`,
			events: ["*"],
		});
		expect([byOwner, byWholeKey, byTenantKey, byRestricted].map((c) => [c.status, c.json.data.account_events])).toEqual(
			[
				[201, true],
				[201, true],
				[201, false],
				[201, false],
			],
		);
		w.bg.start();
		await w.fannedOut();
		const third = await call("POST", "/v1/tenants", owner, { name: "Third, secret name" });
		expect(third.status).toBe(201);
		await w.record("message.sent");
		w.bg.wake();
		await w.fannedOut();
		// Every delivery exists once the fan-out is done: what each endpoint was given.
		const given: Record<string, string[]> = {};
		for (const [name, created] of Object.entries({ byOwner, byWholeKey, byTenantKey, byRestricted })) {
			const log = await call("GET", `/v1/webhook-endpoints/${created.json.data.id}/deliveries`, owner);
			given[name] = log.json.data.map((d: { event: string }) => d.event).sort();
		}
		expect(given).toEqual({
			byOwner: ["message.sent", "tenant.created"],
			byWholeKey: ["tenant.created"],
			byTenantKey: ["message.sent"],
			byRestricted: ["message.sent"],
		});
		await waitFor(() => r.requests.length >= 5, "five deliveries");
		expect(
			r.requests
				.filter((q) => q.body.includes("Third, secret name"))
				.map(hookPath)
				.sort(),
		).toEqual(["owner", "whole-key"]);
	});

	it("needs the permission to read what the events tell: tenants:read for tenant.*, all three reads for *", async () => {
		const { owner } = await world();
		const webhooksOnly = await createKey(w.t, owner, { scope: "account", permissions: ["webhooks:write"] });
		const named = await call("POST", "/v1/webhook-endpoints", webhooksOnly, {
			url: "ftp://invalid",
			events: ["tenant.*", "billing.*"],
		});
		expect([named.status, named.json.error.code]).toEqual([403, "insufficient_scope"]);
		expect(named.json.error.message).toContain("tenants:read, billing:read");
		const everything = await call("POST", "/v1/webhook-endpoints", webhooksOnly, { url: `${r.url}/w`, events: ["*"] });
		expect([everything.status, everything.json.data.account_events]).toEqual([201, false]);
		const readsTenants = await createKey(w.t, owner, {
			scope: "account",
			permissions: ["webhooks:write", "tenants:read"],
		});
		const all = await call("POST", "/v1/webhook-endpoints", readsTenants, { url: `${r.url}/t`, events: ["*"] });
		expect([all.status, all.json.data.account_events]).toEqual([201, false]);
		const tenantsOnly = await call("POST", "/v1/webhook-endpoints", readsTenants, {
			url: `${r.url}/t2`,
			events: ["tenant.*"],
		});
		expect([tenantsOnly.status, tenantsOnly.json.data.account_events]).toEqual([201, true]);
	});

	it("keeps a flagged endpoint and its account-level deliveries out of reach of lesser credentials", async () => {
		const { owner, tenantKey, restrictedKey } = await world();
		const flagged = (await call("POST", "/v1/webhook-endpoints", owner, { url: `${r.url}/owner`, events: ["*"] })).json
			.data.id as string;
		w.bg.start();
		await w.fannedOut();
		await call("PATCH", "/v1/account", owner, { name: "Renamed account" });
		w.bg.wake();
		await w.fannedOut();
		await waitFor(() => r.requests.length >= 1, "account.updated");
		const test = await call("POST", `/v1/webhook-endpoints/${flagged}/test`, owner);
		expect(test.json.data.status).toBe("succeeded");
		const ownerLog = (await call("GET", `/v1/webhook-endpoints/${flagged}/deliveries`, owner)).json.data;
		expect(ownerLog.map((d: { event: string }) => d.event)).toEqual(["webhook.test", "account.updated"]);
		const accountDelivery = ownerLog[1].id as string;
		for (const token of [tenantKey, restrictedKey]) {
			// It sees the endpoint, not the account's deliveries, and cannot repoint, pause or delete it.
			const seen = await call("GET", `/v1/webhook-endpoints/${flagged}`, token);
			expect(seen.json.data).toMatchObject({ account_events: true });
			const log = await call("GET", `/v1/webhook-endpoints/${flagged}/deliveries`, token);
			expect([log.json.data.map((d: { event: string }) => d.event), log.json.pagination.total]).toEqual([
				["webhook.test"],
				1,
			]);
			expect(log.text).not.toContain("Renamed account");
			const retry = await call("POST", `/v1/webhook-endpoints/${flagged}/deliveries/${accountDelivery}/retry`, token);
			expect([retry.status, retry.text]).toEqual([404, expect.not.stringContaining("Renamed")]);
			for (const body of [{ url: "https://attacker.example/" }, { active: false }, { events: ["message.*"] }, []]) {
				const patched = await call("PATCH", `/v1/webhook-endpoints/${flagged}`, token, body);
				expect([patched.status, patched.json.error.code], JSON.stringify(body)).toEqual([403, "insufficient_scope"]);
			}
			const deleted = await call("DELETE", `/v1/webhook-endpoints/${flagged}`, token);
			expect([deleted.status, deleted.json.error.code]).toEqual([403, "insufficient_scope"]);
		}
		expect((await call("GET", `/v1/webhook-endpoints/${flagged}`, owner)).json.data).toMatchObject({
			url: `${r.url}/owner`,
			active: true,
			account_events: true,
		});
		expect((await call("DELETE", `/v1/webhook-endpoints/${flagged}`, owner)).status).toBe(200);
	});

	it("decides account_events by who last set the events, and only in the account's first tenant", async () => {
		const { owner, tenantKey, secondTenant } = await world();
		const endpoint = (await call("POST", "/v1/webhook-endpoints", tenantKey, { url: `${r.url}/a`, events: ["*"] })).json
			.data.id as string;
		const path = `/v1/webhook-endpoints/${endpoint}`;
		// The owner changing something else leaves it; setting the events makes it the account's.
		expect((await call("PATCH", path, owner, { url: `${r.url}/b` })).json.data.account_events).toBe(false);
		expect((await call("PATCH", path, owner, { events: ["*"] })).json.data.account_events).toBe(true);
		expect((await call("PATCH", path, owner, { events: ["message.*"] })).json.data.account_events).toBe(false);
		// Back to a tenant key's endpoint: the tenant key may change it again, keeping it its own.
		const mine = await call("PATCH", path, tenantKey, { events: ["*"], active: false });
		expect([mine.status, mine.json.data.account_events]).toEqual([200, false]);
		// An owner's * in another tenant: account-level events go to the first tenant only.
		const elsewhere = await call(
			"POST",
			"/v1/webhook-endpoints",
			owner,
			{ url: `${r.url}/c`, events: ["*"] },
			{
				"x-tenant-id": secondTenant,
			},
		);
		expect([elsewhere.status, elsewhere.json.data.account_events]).toEqual([201, false]);
	});
});
