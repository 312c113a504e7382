import { afterEach, describe, expect, it } from "vitest";
import { recordEvent } from "../../src/service/events.ts";
import type { EventKind } from "../../src/service/webhooks/event-kinds.ts";
import { EVENT_SAMPLES } from "../helpers/event-samples.ts";
import { type Receiver, type Responder, startReceiver, waitFor } from "../helpers/webhook-receiver.ts";
import { createWebhookWorld, type WebhookWorld } from "../helpers/webhook-world.ts";

/**
 * A message's events reach an endpoint in the order they happened (issue #18: `message.delivered`
 * arrived before `message.sent`). A sync MDN moves a message to sent and delivered in one
 * transaction: both events are due at once, and an endpoint takes up to 8 deliveries at a time.
 */
let w: WebhookWorld;
let r: Receiver;
afterEach(async () => {
	await w.close();
	await r.close();
});

async function setUp(respond: Responder) {
	w = await createWebhookWorld();
	w.bg.start();
	await w.fannedOut();
	r = await startReceiver(respond);
	return w.createEndpoint({ url: r.url, events: ["message.*"] });
}

/** The events of one state change of message `id`, recorded in one transaction as transitions do. */
const record = (id: string, kinds: EventKind[]) =>
	w.t.store.transaction(async (tx) => {
		for (const kind of kinds) {
			await recordEvent(
				tx,
				{
					kind,
					accountId: w.owner.accountId,
					tenantId: w.owner.tenantId,
					environment: "live",
					data: { ...EVENT_SAMPLES[kind]!, id },
				},
				w.t.clock.now(),
			);
		}
	});

/** The event kinds the receiver got for message `id`, in arrival order (successful answers only). */
const arrivedFor = (id: string, answered: Array<{ id: string; kind: string }>) =>
	answered.filter((a) => a.id === id).map((a) => a.kind);

describe("webhook deliveries of one message, in order", () => {
	it("a slow answer to message.sent holds message.delivered back; other messages are not held", async () => {
		const answered: Array<{ id: string; kind: string }> = [];
		await setUp(async (request) => {
			const { event: type, data } = request.json as { event: string; data: { id: string } };
			// The receiver is slow with the first message's sent event only.
			if (type === "message.sent" && data.id === "msg_000101") await new Promise((r) => setTimeout(r, 300));
			answered.push({ id: data.id, kind: type });
			return 200;
		});
		await record("msg_000101", ["message.sent", "message.delivered"]);
		await record("msg_000102", ["message.sent", "message.delivered"]);
		await w.fannedOut();
		w.bg.wake();
		await waitFor(async () => answered.length === 4, "four deliveries");
		expect(arrivedFor("msg_000101", answered)).toEqual(["message.sent", "message.delivered"]);
		expect(arrivedFor("msg_000102", answered)).toEqual(["message.sent", "message.delivered"]);
		// msg_000102 did not wait for msg_000101's slow answer.
		expect(answered.findIndex((a) => a.id === "msg_000102" && a.kind === "message.delivered")).toBeLessThan(
			answered.findIndex((a) => a.id === "msg_000101" && a.kind === "message.sent"),
		);
	});

	it("message.sent failing and retried later still arrives before message.delivered", async () => {
		const answered: Array<{ id: string; kind: string }> = [];
		let sentAttempts = 0;
		await setUp((request) => {
			const { event: type, data } = request.json as { event: string; data: { id: string } };
			if (type === "message.sent" && ++sentAttempts === 1) return 500;
			answered.push({ id: data.id, kind: type });
			return 200;
		});
		await record("msg_000201", ["message.sent", "message.delivered"]);
		await w.fannedOut();
		w.bg.wake();
		await waitFor(async () => sentAttempts === 1, "the first attempt of message.sent");
		// Its retry is due 1 s of the test clock later: until then message.delivered waits.
		await new Promise((resolve) => setTimeout(resolve, 200));
		w.bg.wake();
		expect(answered).toEqual([]);
		w.t.clock.advance(1);
		w.bg.wake();
		await waitFor(async () => answered.length === 2, "both delivered");
		expect(arrivedFor("msg_000201", answered)).toEqual(["message.sent", "message.delivered"]);
	});
});
