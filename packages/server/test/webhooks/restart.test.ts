import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { recordEvent } from "../../src/service/events.ts";
import { FAN_OUT_JOB } from "../../src/service/webhooks/job-kinds.ts";
import { EVENT_SAMPLES } from "../helpers/event-samples.ts";
import { TestClock } from "../helpers/test-app.ts";
import { type Receiver, startReceiver, waitFor } from "../helpers/webhook-receiver.ts";
import { createWebhookWorld, type WebhookWorld } from "../helpers/webhook-world.ts";

/**
 * Restarts on one SQLite file: a process is stopped (or dies) and another opens the same
 * database; what the first left undone is done by the second, nothing twice on purpose.
 */
let dir: string;
let r: Receiver;
const worlds: WebhookWorld[] = [];
afterEach(async () => {
	for (const world of worlds.splice(0)) await world.close();
	await r.close();
	rmSync(dir, { recursive: true, force: true });
});

async function open(url: string, clock: TestClock): Promise<WebhookWorld> {
	const world = await createWebhookWorld({}, { url, clock });
	worlds.push(world);
	return world;
}

const record = (world: WebhookWorld, accountId: string, tenantId: string, clock: TestClock) =>
	world.t.store.transaction((tx) =>
		recordEvent(
			tx,
			{ kind: "message.failed", accountId, tenantId, environment: "live", data: EVENT_SAMPLES["message.failed"]! },
			clock.now(),
		),
	);

it("loses nothing when the process restarts in the middle of a retry sequence", async () => {
	dir = mkdtempSync(join(tmpdir(), "as2kit-restart-"));
	const url = join(dir, "as2.sqlite");
	const clock = new TestClock();
	r = await startReceiver((_, i) => (i === 0 ? 500 : 200));
	const before = await open(url, clock);
	const { accountId, tenantId } = before.owner;
	before.bg.start();
	await before.fannedOut();
	const endpoint = await before.createEndpoint({ url: r.url, events: ["message.*"] });
	await record(before, accountId, tenantId, clock);
	before.bg.wake();
	await waitFor(async () => {
		const page = await before.t.store.webhookDeliveries.list(tenantId, endpoint.id, { page: 1, perPage: 1 });
		return page.items[0]?.attempts === 1;
	}, "the first attempt");
	// A clean stop, then another process on the same file.
	await before.close();
	worlds.splice(worlds.indexOf(before), 1);

	const after = await open(url, clock);
	after.bg.start();
	clock.advance(1);
	after.bg.wake();
	await waitFor(async () => {
		const d = (await after.t.store.webhookDeliveries.list(tenantId, endpoint.id, { page: 1, perPage: 1 })).items[0];
		return d?.status === "succeeded";
	}, "the retry by the restarted process");
	const [delivery] = (await after.t.store.webhookDeliveries.list(tenantId, endpoint.id, { page: 1, perPage: 10 }))
		.items;
	expect(delivery).toMatchObject({ attempts: 2, status: "succeeded" });
	expect(r.requests).toHaveLength(2);
	expect(r.requests[1]!.body).toBe(r.requests[0]!.body);
	expect(r.requests[1]!.headers["x-webhook-id"]).toBe(r.requests[0]!.headers["x-webhook-id"]);
});

it("finishes the work of a process that died holding a fan-out job and a delivery", async () => {
	dir = mkdtempSync(join(tmpdir(), "as2kit-crash-"));
	const url = join(dir, "as2.sqlite");
	const clock = new TestClock();
	r = await startReceiver();
	const dead = await open(url, clock);
	const { accountId, tenantId } = dead.owner;
	dead.bg.start();
	await dead.fannedOut();
	const endpoint = await dead.createEndpoint({ url: r.url, events: ["message.*"] });
	await dead.bg.stop();
	// The dead process had claimed the fan-out job of one event …
	await record(dead, accountId, tenantId, clock);
	const [job] = await dead.t.store.jobs.claim({
		kinds: [FAN_OUT_JOB],
		limit: 1,
		workerId: "dead-worker",
		leaseMs: 60_000,
		now: clock.now(),
	});
	expect(job).toBeDefined();
	// … and was sending a delivery of another when it died.
	const held = await dead.t.store.ids.next("whd_");
	await dead.t.store.webhookDeliveries.create({
		id: held,
		accountId,
		tenantId,
		endpointId: endpoint.id,
		eventId: null,
		eventKind: "message.sent",
		orderingKey: null,
		body: JSON.stringify({
			event: "message.sent",
			data: EVENT_SAMPLES["message.sent"],
			timestamp: "",
			api_version: "v1",
		}),
		status: "pending",
		attempts: 0,
		nextAttemptAt: clock.now(),
		lastAttemptAt: null,
		lastResponseStatus: null,
		lastError: null,
		lockedBy: "dead-dispatcher",
		lockedUntil: new Date(clock.now().getTime() + 60_000),
		createdAt: clock.now(),
		updatedAt: clock.now(),
	});
	await dead.t.close();
	worlds.splice(worlds.indexOf(dead), 1);

	const survivor = await open(url, clock);
	survivor.bg.start();
	survivor.bg.wake();
	// While the dead process's leases last, its work stays with it; then it comes back.
	const page = () => survivor.t.store.webhookDeliveries.list(tenantId, endpoint.id, { page: 1, perPage: 10 });
	expect((await page()).items.map((d) => d.lockedBy)).toEqual(["dead-dispatcher"]);
	clock.advance(61);
	survivor.bg.wake();
	await waitFor(async () => {
		const items = (await page()).items;
		return items.length === 2 && items.every((d) => d.status === "succeeded");
	}, "both deliveries");
	expect(r.requests.map((q) => q.json.event).sort()).toEqual(["message.failed", "message.sent"]);
	expect((await survivor.t.store.jobs.list({ kind: FAN_OUT_JOB })).length).toBe(0);
});
