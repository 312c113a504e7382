import { expect } from "vitest";
import type { ServiceConfig } from "../../src/service/config.ts";
import { recordEvent } from "../../src/service/events.ts";
import { type Background, createBackground } from "../../src/service/jobs/background.ts";
import type { EventKind } from "../../src/service/webhooks/event-kinds.ts";
import { FAN_OUT_JOB } from "../../src/service/webhooks/job-kinds.ts";
import { EVENT_SAMPLES } from "./event-samples.ts";
import { createTestApp, register, type TestApp, type TestClock } from "./test-app.ts";

export interface WebhookWorld {
	t: TestApp;
	owner: Awaited<ReturnType<typeof register>>;
	/** The worker and the delivery dispatcher, polling every 10 ms; not started. */
	bg: Background;
	/** Creates an endpoint through the API; returns its data (with the secret). */
	// biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON
	createEndpoint(body: Record<string, unknown>, headers?: Record<string, string>): Promise<any>;
	/** Records an event of the owner's tenant with its sample data, as its emitter would. */
	record(kind: EventKind): Promise<unknown>;
	/** Waits until every outbox event has been fanned out to deliveries. */
	fannedOut(): Promise<void>;
	close(): Promise<void>;
}

/**
 * An account (Enterprise, so rate limits stay out of the way) on a service that accepts
 * http:// receivers on 127.0.0.1 (AS2_ALLOW_HTTP=1, AS2_ALLOW_PRIVATE_TARGETS=1) and retries after 0, 1 and 2 seconds of
 * the test clock.
 */
export async function createWebhookWorld(
	config: Partial<ServiceConfig> = {},
	options: { url?: string; clock?: TestClock } = {},
): Promise<WebhookWorld> {
	const t = createTestApp(
		{ allowHttp: true, allowPrivateTargets: true, webhookRetryDelays: [0, 1, 2], defaultPlan: "enterprise", ...config },
		undefined,
		options,
	);
	const owner = await register(t);
	const bg = createBackground(t.service, { pollMs: 10 });
	return {
		t,
		owner,
		bg,
		async createEndpoint(body, headers = {}) {
			const response = await t.call("POST", "/v1/webhook-endpoints", { token: owner.token, body, headers });
			expect(response.status, response.text).toBe(201);
			return response.json.data;
		},
		record: (kind) =>
			t.store.transaction((tx) =>
				recordEvent(
					tx,
					{
						kind,
						accountId: owner.accountId,
						tenantId: owner.tenantId,
						environment: "live",
						data: EVENT_SAMPLES[kind]!,
					},
					t.clock.now(),
				),
			),
		async fannedOut() {
			for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
				if ((await t.store.jobs.list({ kind: FAN_OUT_JOB })).length === 0) return;
				bg.wake();
				await new Promise((resolve) => setTimeout(resolve, 10));
			}
			throw new Error("fan-out jobs still pending after 30 s");
		},
		async close() {
			await bg.stop();
			await t.close();
		},
	};
}
