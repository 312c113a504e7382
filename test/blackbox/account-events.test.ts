/**
 * Account-level webhook events over real sockets (issue #16, defect 3 "no key may reach
 * further than its grant"; README, Webhooks): the built server, with its worker, delivers
 * `tenant.created` to the owner's `*` endpoint and never to the `*` endpoint of a tenant key of
 * the same (first) tenant, which still gets its message events; the tenant key naming
 * `tenant.*` is 403 with fetch and with curl. Every URL is a loopback receiver of this file.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Receiver, startReceiver, waitFor } from "../../packages/server/test/helpers/webhook-receiver.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, createKey, curl, type Registered, register } from "./clients.ts";

let server: BuiltServer;
let receiver: Receiver;
let owner: Registered;
let tenantKey: string;

beforeAll(async () => {
	[server, receiver] = await Promise.all([
		startBuiltServer({ env: { AS2_ALLOW_HTTP: "1", AS2_ALLOW_PRIVATE_TARGETS: "1", AS2_DEFAULT_PLAN: "enterprise" } }),
		startReceiver(),
	]);
	owner = await register(server.base);
	tenantKey = await createKey(server.base, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "live",
		permissions: ["*"],
	});
}, 120_000);
afterAll(async () => {
	await receiver?.close();
	await server?.stop();
});

/** The events an endpoint of this file received, by the last segment of its URL. */
const events = (name: string) =>
	receiver.requests.filter((q) => q.path.endsWith(`/${name}`)).map((q) => q.json?.event as string);

describe("account-level events over real sockets", () => {
	it("answers a tenant key naming tenant.* 403 before validating, with fetch and with curl", async () => {
		const fetched = await call(server.base, "POST", "/v1/webhook-endpoints", {
			token: tenantKey,
			body: { url: "ftp://nowhere", events: ["tenant.*"], secret: "short" },
		});
		expect([fetched.status, fetched.json.error.code]).toEqual([403, "insufficient_scope"]);
		expect(fetched.json.error.message).toContain("account-level events");
		const { stdout } = await curl([
			"-sS",
			"-X",
			"POST",
			`${server.base}/v1/webhook-endpoints`,
			"-H",
			`Authorization: Bearer ${tenantKey}`,
			"--data-urlencode",
			`url=${receiver.url}/curl`,
			"--data-urlencode",
			"events=billing.*",
			"-w",
			"\n%{http_code}",
		]);
		const [body, status] = [stdout.slice(0, stdout.lastIndexOf("\n")), stdout.slice(stdout.lastIndexOf("\n") + 1)];
		expect([status, JSON.parse(body).error.code]).toEqual(["403", "insufficient_scope"]);
		server.assertAlive();
	});

	it("delivers tenant.created to the owner's * endpoint only; the tenant key's * endpoint gets message events", async () => {
		const endpoint = async (token: string, name: string) => {
			const created = await call(server.base, "POST", "/v1/webhook-endpoints", {
				token,
				body: { url: `${receiver.url}/${name}`, events: ["*"] },
			});
			expect(created.status, created.text).toBe(201);
			return created.json.data as { id: string; account_events: boolean };
		};
		const byOwner = await endpoint(owner.token, "owner");
		const byTenantKey = await endpoint(tenantKey, "tenant-key");
		expect([byOwner.account_events, byTenantKey.account_events]).toEqual([true, false]);

		const tenant = await call(server.base, "POST", "/v1/tenants", {
			token: owner.token,
			body: { name: "Blackbox hidden tenant" },
		});
		expect(tenant.status).toBe(201);
		const partner = await call(server.base, "POST", "/v1/partners", {
			token: tenantKey,
			body: { name: "Blackbox partner", as2_id: `BLACKBOX-EVENTS-${process.pid}`, url: `${receiver.url}/as2` },
		});
		expect(partner.status, partner.text).toBe(201);
		const message = await call(server.base, "POST", "/v1/messages", {
			token: tenantKey,
			body: {
				partner_id: partner.json.data.id,
				content_type: "text/plain",
				payload: { content: "hello" },
				scheduled_at: new Date(Date.now() + 86_400_000).toISOString(),
			},
		});
		expect(message.status, message.text).toBe(202);

		await waitFor(
			() => events("owner").includes("tenant.created") && events("tenant-key").includes("message.queued"),
			"tenant.created at the owner's endpoint and message.queued at the tenant key's",
			60_000,
		);
		// tenant.created's deliveries were made in one transaction: the owner's arrived, so the
		// tenant key's endpoint would have one now if it were given one.
		const log = await call(server.base, "GET", `/v1/webhook-endpoints/${byTenantKey.id}/deliveries`, {
			token: owner.token,
		});
		expect(log.json.data.map((d: { event: string }) => d.event).sort()).toEqual(["message.queued", "partner.created"]);
		await waitFor(() => events("owner").includes("message.queued"), "message.queued at the owner's endpoint", 60_000);
		expect(events("tenant-key").sort()).toEqual(["message.queued", "partner.created"]);
		const leaked = receiver.requests.filter(
			(q) => !q.path.endsWith("/owner") && q.body.includes("Blackbox hidden tenant"),
		);
		expect(leaked).toEqual([]);
		server.assertAlive();
	}, 120_000);
});
