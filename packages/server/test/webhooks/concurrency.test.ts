import { afterEach, expect, it } from "vitest";
import { recordEvent } from "../../src/service/events.ts";
import type { EventKind } from "../../src/service/webhooks/event-kinds.ts";
import { EVENT_SAMPLES } from "../helpers/event-samples.ts";
import { type Receiver, startReceiver, waitFor } from "../helpers/webhook-receiver.ts";
import { createWebhookWorld, type WebhookWorld } from "../helpers/webhook-world.ts";

let w: WebhookWorld;
let slow: Receiver;
let fast: Receiver;
let release: () => void = () => {};
afterEach(async () => {
	release();
	await w.close();
	await slow.close();
	await fast.close();
});

it("caps attempts in flight per endpoint, and one slow endpoint never delays another", async () => {
	w = await createWebhookWorld({ webhookEndpointConcurrency: 2 });
	w.bg.start();
	await w.fannedOut();
	const gate = new Promise<void>((resolve) => {
		release = resolve;
	});
	slow = await startReceiver(async () => {
		await gate;
		return 200;
	});
	fast = await startReceiver();
	await w.createEndpoint({ url: slow.url, events: ["message.sent"] });
	await w.createEndpoint({ url: fast.url, events: ["message.failed"] });
	// Each event of another message: the events of one message go out one at a time, in order.
	let messages = 0;
	const record = (kind: EventKind) =>
		w.t.store.transaction((tx) =>
			recordEvent(
				tx,
				{
					kind,
					accountId: w.owner.accountId,
					tenantId: w.owner.tenantId,
					environment: "live",
					data: { ...EVENT_SAMPLES[kind]!, id: `msg_${String(++messages).padStart(6, "0")}` },
				},
				w.t.clock.now(),
			),
		);
	for (let i = 0; i < 5; i++) await record("message.sent");
	for (let i = 0; i < 3; i++) await record("message.failed");
	w.bg.wake();
	await w.fannedOut();
	// The slow receiver holds every request; the fast one is served all the same.
	await waitFor(() => fast.requests.length === 3 && slow.requests.length === 2, "the fast endpoint's deliveries");
	for (let i = 0; i < 20; i++) {
		w.bg.wake();
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
	expect(slow.requests).toHaveLength(2);
	expect(slow.maxInFlight).toBe(2);
	release();
	await waitFor(() => slow.requests.length === 5, "the slow endpoint's deliveries");
	expect(slow.maxInFlight).toBe(2);
});
