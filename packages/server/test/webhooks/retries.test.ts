import { afterEach, describe, expect, it } from "vitest";
import type { ServiceConfig } from "../../src/service/config.ts";
import { recordEvent } from "../../src/service/events.ts";
import { EVENT_SAMPLES } from "../helpers/event-samples.ts";
import {
	expectedSignature,
	type Receiver,
	type Responder,
	startReceiver,
	waitFor,
} from "../helpers/webhook-receiver.ts";
import { createWebhookWorld, type WebhookWorld } from "../helpers/webhook-world.ts";

let w: WebhookWorld;
let r: Receiver;
afterEach(async () => {
	await w.close();
	await r.close();
});

/** A world with one endpoint on a receiver answering per `respond`, the worker running. */
async function setUp(respond: Responder, config: Partial<ServiceConfig> = {}) {
	w = await createWebhookWorld(config);
	w.bg.start();
	await w.fannedOut();
	r = await startReceiver(respond);
	return w.createEndpoint({ url: r.url, events: ["message.*"] });
}

const sendEvent = () =>
	w.t.store.transaction((tx) =>
		recordEvent(
			tx,
			{
				kind: "message.sent",
				accountId: w.owner.accountId,
				tenantId: w.owner.tenantId,
				environment: "live",
				data: EVENT_SAMPLES["message.sent"]!,
			},
			w.t.clock.now(),
		),
	);

const deliveries = async (endpointId: string) =>
	(await w.t.call("GET", `/v1/webhook-endpoints/${endpointId}/deliveries`, { token: w.owner.token })).json.data;

/** Waits until the (only) delivery has finished `attempts` attempts. */
async function attemptsDone(endpointId: string, attempts: number) {
	await waitFor(async () => (await deliveries(endpointId))[0]?.attempts === attempts, `attempt ${attempts}`);
	return (await deliveries(endpointId))[0];
}

describe("webhook retries", () => {
	it("gives a receiver failing twice then succeeding exactly 3 attempts, same body and id, spaced per the delays", async () => {
		const statuses = [500, 503, 200];
		const endpoint = await setUp((_, i) => statuses[i] ?? 200);
		await sendEvent();
		w.bg.wake();
		const first = await attemptsDone(endpoint.id, 1);
		expect(first).toMatchObject({ status: "pending", last_response_status: 500, last_error: "HTTP 500" });
		// AS2_WEBHOOK_RETRY_DELAYS = 0,1,2: the second attempt is due 1 s after the first.
		expect(first.next_attempt_at).toBe("2026-03-01T09:00:01.000000Z");
		expect(r.requests).toHaveLength(1);
		w.t.clock.advance(1);
		w.bg.wake();
		const second = await attemptsDone(endpoint.id, 2);
		expect(second.next_attempt_at).toBe("2026-03-01T09:00:03.000000Z");
		w.t.clock.advance(2);
		w.bg.wake();
		const third = await attemptsDone(endpoint.id, 3);
		expect(third).toMatchObject({ status: "succeeded", next_attempt_at: null, last_response_status: 200 });
		expect(third.attempt_log.map((a: { attempted_at: string }) => a.attempted_at)).toEqual([
			"2026-03-01T09:00:00.000000Z",
			"2026-03-01T09:00:01.000000Z",
			"2026-03-01T09:00:03.000000Z",
		]);
		expect(third.attempt_log.map((a: { status: string }) => a.status)).toEqual(["failed", "failed", "succeeded"]);
		expect(r.requests).toHaveLength(3);
		const [a, b, c] = r.requests;
		expect(new Set([a!.body, b!.body, c!.body]).size).toBe(1);
		expect(new Set(r.requests.map((q) => q.headers["x-webhook-id"]))).toEqual(new Set([third.id]));
		expect(r.requests.map((q) => q.headers["x-webhook-timestamp"])).toEqual(
			[0, 1, 3].map((s) => String(Date.parse("2026-03-01T09:00:00Z") / 1000 + s)),
		);
		for (const q of r.requests) expect(q.headers["x-signature"]).toBe(expectedSignature(endpoint.secret, q.body));
		const stats = await w.t.call("GET", "/v1/webhook-endpoints-stats", { token: w.owner.token });
		expect(stats.json.data).toEqual([
			{
				endpoint_id: endpoint.id,
				url: r.url,
				total_deliveries: 3,
				successful_deliveries: 1,
				failed_deliveries: 2,
				success_rate: 33.33,
				avg_response_time_ms: expect.any(Number),
				last_delivery_at: "2026-03-01T09:00:03.000000Z",
			},
		]);
	});

	it("gives up when the schedule is spent; a manual retry sends once more", async () => {
		let status = 500;
		const endpoint = await setUp(() => status);
		await sendEvent();
		w.bg.wake();
		await attemptsDone(endpoint.id, 1);
		w.t.clock.advance(1);
		w.bg.wake();
		await attemptsDone(endpoint.id, 2);
		w.t.clock.advance(2);
		w.bg.wake();
		const spent = await attemptsDone(endpoint.id, 3);
		expect(spent).toMatchObject({ status: "failed", next_attempt_at: null });
		const path = `/v1/webhook-endpoints/${endpoint.id}/deliveries/${spent.id}/retry`;
		const queued = await w.t.call("POST", path, { token: w.owner.token });
		expect(queued.status).toBe(202);
		expect(queued.json.data).toMatchObject({ id: spent.id, status: "pending", attempts: 3 });
		w.bg.wake();
		expect(await attemptsDone(endpoint.id, 4)).toMatchObject({ status: "failed", next_attempt_at: null });
		status = 200;
		await w.t.call("POST", path, { token: w.owner.token });
		w.bg.wake();
		expect(await attemptsDone(endpoint.id, 5)).toMatchObject({ status: "succeeded" });
		expect(r.requests).toHaveLength(5);
		expect(new Set(r.requests.map((q) => q.body)).size).toBe(1);
		const missing = `/v1/webhook-endpoints/${endpoint.id}/deliveries/whd_999999/retry`;
		expect((await w.t.call("POST", missing, { token: w.owner.token })).status).toBe(404);
	});

	it("refuses a manual retry while the endpoint is inactive", async () => {
		const endpoint = await setUp(() => 500);
		await sendEvent();
		w.bg.wake();
		const delivery = await attemptsDone(endpoint.id, 1);
		await w.t.call("PATCH", `/v1/webhook-endpoints/${endpoint.id}`, { token: w.owner.token, body: { active: false } });
		const path = `/v1/webhook-endpoints/${endpoint.id}/deliveries/${delivery.id}/retry`;
		const refused = await w.t.call("POST", path, { token: w.owner.token });
		expect(refused.status).toBe(422);
		expect(refused.json.errors).toHaveProperty("webhook_id");
	});

	it("deactivates an endpoint failing continuously for 3 days, telling its owner why; reactivation resets it", async () => {
		// Attempts 0 s and 72 h 13 min 20 s apart: the second failure ends three days of failing.
		const endpoint = await setUp(() => 500, { webhookRetryDelays: [0, 260_000, 60] });
		await sendEvent();
		w.bg.wake();
		const first = await attemptsDone(endpoint.id, 1);
		const failing = await w.t.call("GET", `/v1/webhook-endpoints/${endpoint.id}`, { token: w.owner.token });
		expect(failing.json.data).toMatchObject({ active: true, failing_since: "2026-03-01T09:00:00.000000Z" });
		w.t.clock.advance(260_000);
		w.bg.wake();
		await attemptsDone(endpoint.id, 2);
		const disabled = (await w.t.call("GET", `/v1/webhook-endpoints/${endpoint.id}`, { token: w.owner.token })).json
			.data;
		expect(disabled).toMatchObject({ active: false, failing_since: "2026-03-01T09:00:00.000000Z" });
		expect(disabled.disabled_reason).toMatch(/failing continuously for 3 days.*HTTP 500/);
		// Its pending delivery waits; new events are not fanned out to it.
		await sendEvent();
		w.t.clock.advance(60);
		w.bg.wake();
		await w.fannedOut();
		const paused = await deliveries(endpoint.id);
		expect(paused).toHaveLength(1);
		expect(paused[0]).toMatchObject({ status: "pending", attempts: 2, next_attempt_at: null });
		const reactivated = await w.t.call("PATCH", `/v1/webhook-endpoints/${endpoint.id}`, {
			token: w.owner.token,
			body: { active: true },
		});
		expect(reactivated.json.data).toMatchObject({ active: true, failing_since: null, disabled_reason: null });
		w.bg.wake();
		expect(await attemptsDone(endpoint.id, 3)).toMatchObject({ id: first.id, status: "failed" });
	});

	it("a success ends the failure streak", async () => {
		const statuses = [500, 204];
		const endpoint = await setUp((_, i) => statuses[i] ?? 204);
		await sendEvent();
		w.bg.wake();
		await attemptsDone(endpoint.id, 1);
		w.t.clock.advance(1);
		w.bg.wake();
		await attemptsDone(endpoint.id, 2);
		const healthy = await w.t.call("GET", `/v1/webhook-endpoints/${endpoint.id}`, { token: w.owner.token });
		expect(healthy.json.data).toMatchObject({ active: true, failing_since: null });
	});
});
