import type { Environment } from "@as2kit/core/store";
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { recordEvent } from "../../src/service/events.ts";
import { EVENT_KIND_NAMES, EVENT_KINDS, type EventKind } from "../../src/service/webhooks/event-kinds.ts";
import { EVENT_SAMPLES } from "../helpers/event-samples.ts";
import { expectedSignature, type Receiver, startReceiver, waitFor } from "../helpers/webhook-receiver.ts";
import { createWebhookWorld, type WebhookWorld } from "../helpers/webhook-world.ts";

let w: WebhookWorld;
let receivers: Receiver[] = [];
afterEach(async () => {
	await w.close();
	await Promise.all(receivers.map((r) => r.close()));
	receivers = [];
});

async function receiver(): Promise<Receiver> {
	const r = await startReceiver();
	receivers.push(r);
	return r;
}

/** Records an event as an emitter of another issue will, through the service's recordEvent. */
function record(kind: EventKind, options: { tenantId?: string; environment?: Environment } = {}) {
	return w.t.store.transaction((tx) =>
		recordEvent(
			tx,
			{
				kind,
				accountId: w.owner.accountId,
				tenantId: options.tenantId ?? w.owner.tenantId,
				environment: options.environment ?? "live",
				data: EVENT_SAMPLES[kind]!,
			},
			w.t.clock.now(),
		),
	);
}

const kindsOf = (r: Receiver) => r.requests.map((q) => q.json.event as string).sort();

describe("event delivery", () => {
	it("delivers every event kind of the spec with the envelope, the data fields and a valid signature", async () => {
		w = await createWebhookWorld();
		const r = await receiver();
		// Created before the worker runs: account.created and tenant.created of the registration
		// are fanned out after it exists (endpoints are matched at fan-out time).
		const { id, secret } = await w.createEndpoint({ url: r.url, events: ["*"] });
		const { token } = w.owner;
		// The kinds the product emits today, through the API …
		expect((await w.t.call("PATCH", "/v1/account", { token, body: { name: "Renamed" } })).status).toBe(200);
		expect((await w.t.call("PATCH", "/v1/account", { token, body: { plan: "professional" } })).status).toBe(200);
		const tenant = await w.t.call("POST", "/v1/tenants", { token, body: { name: "Second" } });
		await w.t.call("PATCH", `/v1/tenants/${tenant.json.data.id}`, { token, body: { name: "Second, renamed" } });
		expect((await w.t.call("POST", `/v1/webhook-endpoints/${id}/test`, { token })).json.data.status).toBe("succeeded");
		// … and the kinds whose triggers arrive with other issues, through recordEvent.
		const recorded = Object.keys(EVENT_SAMPLES) as EventKind[];
		for (const kind of recorded) await record(kind);
		w.bg.start();
		w.bg.wake();
		// account.updated twice (rename, plan change), tenant.created twice (registration, POST),
		// certificate.uploaded twice (the identity generated at registration, and the recorded one).
		const expected = EVENT_KIND_NAMES.length + 3;
		await waitFor(() => r.requests.length >= expected, "every kind");
		await w.fannedOut();
		expect(r.requests).toHaveLength(expected);
		expect(new Set(kindsOf(r))).toEqual(new Set(EVENT_KIND_NAMES));
		for (const request of r.requests) {
			const kind = request.json.event as EventKind;
			expect(Object.keys(request.json).sort(), kind).toEqual(["api_version", "data", "event", "timestamp"]);
			expect(request.json.api_version).toBe("v1");
			expect(request.json.timestamp).toBe("2026-03-01T09:00:00.000000Z");
			expect(request.headers["x-signature"], kind).toBe(expectedSignature(secret, request.body));
			expect(request.headers["x-webhook-event"]).toBe(kind);
			expect(request.headers["x-webhook-id"]).toMatch(/^whd_\d{6}$/);
			const parsed = v.safeParse(EVENT_KINDS[kind].data, request.json.data);
			expect(parsed.issues ?? [], `${kind}: ${JSON.stringify(request.json.data)}`).toEqual([]);
		}
		// Each recorded event arrives with exactly its data (the product may emit more of a kind).
		for (const kind of recorded) {
			const delivered = r.requests.filter((q) => q.json.event === kind).map((q) => q.json.data);
			expect(delivered, kind).toContainEqual(EVENT_SAMPLES[kind]);
		}
		const subscription = r.requests.find((q) => q.json.event === "billing.subscription_updated")!;
		expect(subscription.json.data).toMatchObject({ plan: "professional", previous_plan: "enterprise" });
		const ids = r.requests.map((q) => q.headers["x-webhook-id"]);
		expect(new Set(ids).size).toBe(ids.length);
	});

	it("honours exact and wildcard subscriptions, and sends nothing to inactive endpoints", async () => {
		w = await createWebhookWorld();
		w.bg.start();
		await w.fannedOut();
		const r = await receiver();
		await w.createEndpoint({ url: `${r.url}/category`, events: ["message.*"] });
		await w.createEndpoint({ url: `${r.url}/mixed`, events: ["partner.created", "billing.*"] });
		await w.createEndpoint({ url: `${r.url}/exact`, events: ["message.sent"] });
		const inactive = await w.createEndpoint({ url: `${r.url}/inactive`, events: ["*"] });
		await w.t.call("PATCH", `/v1/webhook-endpoints/${inactive.id}`, { token: w.owner.token, body: { active: false } });
		await record("message.sent", { environment: "test" });
		await record("message.failed");
		await record("partner.created");
		await record("partner.updated");
		await record("billing.usage_threshold", { environment: "test" });
		w.bg.wake();
		await w.fannedOut();
		await waitFor(() => r.requests.length >= 5, "five deliveries");
		const byPath = (path: string) =>
			r.requests
				.filter((q) => q.path === `/hooks/${path}`)
				.map((q) => q.json.event)
				.sort();
		expect(byPath("category")).toEqual(["message.failed", "message.sent"]);
		expect(byPath("mixed")).toEqual(["billing.usage_threshold", "partner.created"]);
		expect(byPath("exact")).toEqual(["message.sent"]);
		expect(byPath("inactive")).toEqual([]);
		const log = await w.t.call("GET", `/v1/webhook-endpoints/${inactive.id}/deliveries`, { token: w.owner.token });
		expect(log.json.data).toEqual([]);
		expect(r.requests).toHaveLength(5);
	});

	it("sends account-level events to the first tenant's endpoints and tenant events to their tenant's", async () => {
		w = await createWebhookWorld();
		w.bg.start();
		await w.fannedOut();
		const { token } = w.owner;
		const second = (await w.t.call("POST", "/v1/tenants", { token, body: { name: "Second" } })).json.data.id;
		await w.fannedOut();
		const first = await receiver();
		const other = await receiver();
		await w.createEndpoint({ url: first.url, events: ["*"] });
		await w.createEndpoint({ url: other.url, events: ["*"] }, { "x-tenant-id": second });
		await w.t.call("PATCH", `/v1/tenants/${second}`, { token, body: { name: "Second, renamed" } });
		await record("billing.limit_exceeded", { tenantId: second });
		await record("message.received", { tenantId: second });
		await record("certificate.expiring");
		w.bg.wake();
		await w.fannedOut();
		await waitFor(() => first.requests.length + other.requests.length >= 4, "four deliveries");
		expect(kindsOf(first)).toEqual(["billing.limit_exceeded", "certificate.expiring", "tenant.updated"]);
		expect(kindsOf(other)).toEqual(["message.received"]);
		const tenantUpdated = first.requests.find((q) => q.json.event === "tenant.updated")!;
		expect(tenantUpdated.json.data).toMatchObject({ id: second, name: "Second, renamed" });
	});

	it("creates each delivery once even when a fan-out job runs twice", async () => {
		w = await createWebhookWorld();
		w.bg.start();
		await w.fannedOut();
		const r = await receiver();
		const { id } = await w.createEndpoint({ url: r.url, events: ["partner.*"] });
		const eventId = await record("partner.deleted");
		// A second fan-out of the same event, as after a worker died between commit and completion.
		await w.t.store.jobs.enqueue(
			{ kind: "webhooks.fan_out", payload: { eventId }, runAt: w.t.clock.now() },
			w.t.clock.now(),
		);
		w.bg.wake();
		await w.fannedOut();
		await waitFor(() => r.requests.length >= 1, "the delivery");
		const log = await w.t.call("GET", `/v1/webhook-endpoints/${id}/deliveries`, { token: w.owner.token });
		expect(log.json.data).toHaveLength(1);
		expect(log.json.data[0]).toMatchObject({ event_id: eventId, event: "partner.deleted" });
	});
});
