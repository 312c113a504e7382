import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { As2Store } from "@as2kit/core/store";
import { createSqliteStore } from "@as2kit/storage-sqlite";
import { afterEach, expect, it } from "vitest";
import { createFsBlobStore } from "../../src/blobs/fs-blob-store.ts";
import { createService } from "../../src/service/create-service.ts";
import { recordEvent } from "../../src/service/events.ts";
import { type Background, createBackground } from "../../src/service/jobs/background.ts";
import { EVENT_SAMPLES } from "../helpers/event-samples.ts";
import { TestClock } from "../helpers/test-app.ts";
import { type Receiver, startReceiver, waitFor } from "../helpers/webhook-receiver.ts";
import { createWebhookWorld, type WebhookWorld } from "../helpers/webhook-world.ts";

const EVENTS = 200;
let dir: string;
let r: Receiver;
let world: WebhookWorld;
let second: { store: As2Store; bg: Background } | null = null;
afterEach(async () => {
	await world.close();
	if (second) {
		await second.bg.stop();
		await second.store.close();
	}
	await r.close();
	rmSync(dir, { recursive: true, force: true });
});

/** Counts what one instance's dispatcher claims, to show that both took part. */
function counting(store: As2Store, counter: { claimed: number }): As2Store {
	return {
		...store,
		webhookDeliveries: {
			...store.webhookDeliveries,
			claimDue: async (options) => {
				const claimed = await store.webhookDeliveries.claimDue(options);
				counter.claimed += claimed.length;
				return claimed;
			},
		},
	};
}

it("two instances on one database deliver every event once per endpoint, never sending one twice at once", async () => {
	dir = mkdtempSync(join(tmpdir(), "as2kit-two-"));
	const url = join(dir, "as2.sqlite");
	const clock = new TestClock();
	const inFlight = new Set<string>();
	const overlaps: string[] = [];
	r = await startReceiver(async (request) => {
		const id = String(request.headers["x-webhook-id"]);
		if (inFlight.has(id)) overlaps.push(id);
		inFlight.add(id);
		await new Promise((resolve) => setTimeout(resolve, 2));
		inFlight.delete(id);
		return 200;
	});
	// Instance A: the test app on the file (its own connection) …
	world = await createWebhookWorld({}, { url, clock });
	const { accountId, tenantId } = world.owner;
	const endpoints = [
		await world.createEndpoint({ url: `${r.url}/one`, events: ["message.*"] }),
		await world.createEndpoint({ url: `${r.url}/two`, events: ["message.sent"] }),
	];
	// … and instance B: another connection to the same file, another service and background.
	const a = { claimed: 0 };
	const b = { claimed: 0 };
	const storeB = createSqliteStore({ url });
	const serviceB = createService({
		store: counting(storeB, b),
		blobs: createFsBlobStore(join(dir, "blobs")),
		now: clock.now,
		config: { ...world.t.service.deps.config },
	});
	second = { store: storeB, bg: createBackground(serviceB, { pollMs: 10, deliveryConcurrency: 4 }) };
	const bgA = createBackground(
		{ ...world.t.service, deps: { ...world.t.service.deps, store: counting(world.t.store, a) } },
		{ pollMs: 10, deliveryConcurrency: 4 },
	);
	bgA.start();
	second.bg.start();
	try {
		for (let i = 0; i < EVENTS; i++) {
			// Events are written through both connections, as two API instances would.
			const store = i % 2 ? world.t.store : storeB;
			await store.transaction((tx) =>
				recordEvent(
					tx,
					{ kind: "message.sent", accountId, tenantId, environment: "live", data: EVENT_SAMPLES["message.sent"]! },
					clock.now(),
				),
			);
		}
		bgA.wake();
		second.bg.wake();
		await waitFor(() => r.requests.length >= 2 * EVENTS, "every delivery", 60_000);
		await waitFor(
			async () =>
				(await world.t.store.jobs.list()).filter((j) => j.kind === "webhooks.fan_out").length === 0 &&
				(
					await Promise.all(
						endpoints.map((e) =>
							world.t.store.webhookDeliveries.list(tenantId, e.id, { page: 1, perPage: 1 }, { status: "pending" }),
						),
					)
				).every((p) => p.total === 0),
			"both instances to settle",
		);
	} finally {
		await bgA.stop();
	}
	expect(r.requests).toHaveLength(2 * EVENTS);
	expect(overlaps).toEqual([]);
	const ids = r.requests.map((q) => String(q.headers["x-webhook-id"]));
	expect(new Set(ids).size).toBe(2 * EVENTS);
	for (const endpoint of endpoints) {
		const page = await world.t.store.webhookDeliveries.list(
			tenantId,
			endpoint.id,
			{ page: 1, perPage: 100 },
			{ status: "succeeded" },
		);
		expect(page.total).toBe(EVENTS);
		expect(page.items.every((d) => d.attempts === 1)).toBe(true);
		expect(new Set(page.items.map((d) => d.eventId)).size).toBe(page.items.length);
	}
	expect(a.claimed + b.claimed).toBe(2 * EVENTS);
	expect(a.claimed).toBeGreaterThan(0);
	expect(b.claimed).toBeGreaterThan(0);
});
