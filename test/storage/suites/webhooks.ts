import type { As2Store, WebhookAttemptRecord, WebhookDeliveryRecord, WebhookEndpointRecord } from "@as2kit/core/store";
import { expect } from "vitest";
import { at, T0 } from "./fixtures.ts";
import type { ConformanceTest } from "./types.ts";

export const endpoint = (id: string, overrides: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord => ({
	id,
	accountId: "acc_000001",
	tenantId: "tnt_000001",
	url: `https://hooks.example.com/${id}`,
	events: ["message.*", "partner.created"],
	active: true,
	accountEvents: false,
	secretSealed: `sealed-${id}`,
	failingSince: null,
	disabledReason: null,
	createdAt: T0,
	updatedAt: T0,
	...overrides,
});

let deliveryCounter = 0;
const delivery = (overrides: Partial<WebhookDeliveryRecord> = {}): WebhookDeliveryRecord => {
	const n = ++deliveryCounter;
	return {
		id: `whd_${String(n).padStart(6, "0")}`,
		accountId: "acc_000001",
		tenantId: "tnt_000001",
		endpointId: "wh_000001",
		eventId: `evt_${String(n).padStart(6, "0")}`,
		eventKind: "message.sent",
		orderingKey: null,
		body: `{"event":"message.sent","n":${n}}`,
		status: "pending",
		attempts: 0,
		nextAttemptAt: T0,
		lastAttemptAt: null,
		lastResponseStatus: null,
		lastError: null,
		lockedBy: null,
		lockedUntil: null,
		createdAt: T0,
		updatedAt: T0,
		...overrides,
	};
};

const attempt = (d: WebhookDeliveryRecord, overrides: Partial<WebhookAttemptRecord> = {}): WebhookAttemptRecord => ({
	deliveryId: d.id,
	tenantId: d.tenantId,
	endpointId: d.endpointId,
	attempt: d.attempts + 1,
	succeeded: false,
	responseStatus: 500,
	responseTimeMs: 12,
	responseBody: "oops",
	error: "HTTP 500",
	attemptedAt: at(1),
	...overrides,
});

const claim = (store: As2Store, lockedBy: string, now = T0, limit = 10, perEndpointLimit = 10) =>
	store.webhookDeliveries.claimDue({
		limit,
		perEndpointLimit,
		lockedBy,
		now,
		lockedUntil: new Date(now.getTime() + 60_000),
	});

export const webhookTests = {
	"webhooks - endpoints belong to a tenant: another tenant's look missing": async ({ store }) => {
		await store.webhookEndpoints.create(endpoint("wh_000001"));
		await store.webhookEndpoints.create(endpoint("wh_000002", { tenantId: "tnt_000002", accountId: "acc_000002" }));
		expect(await store.webhookEndpoints.get("tnt_000001", "wh_000001")).toEqual(endpoint("wh_000001"));
		expect(await store.webhookEndpoints.get("tnt_000001", "wh_000002")).toBeNull();
		expect(
			await store.webhookEndpoints.update("tnt_000001", "wh_000002", { active: false, updatedAt: at(1) }),
		).toBeNull();
		expect(await store.webhookEndpoints.delete("tnt_000001", "wh_000002")).toBe(false);
		expect(
			await store.webhookEndpoints.recordAttempt("tnt_000001", "wh_000002", {
				succeeded: true,
				responseTimeMs: 1,
				at: at(1),
			}),
		).toBeNull();
		expect((await store.webhookEndpoints.list("tnt_000002", { page: 1, perPage: 10 })).items.map((e) => e.id)).toEqual([
			"wh_000002",
		]);
	},
	"webhooks - endpoints list oldest first; listActive leaves inactive ones out; update patches": async ({ store }) => {
		await store.webhookEndpoints.create(endpoint("wh_000002", { createdAt: at(2) }));
		await store.webhookEndpoints.create(endpoint("wh_000001", { createdAt: at(1) }));
		await store.webhookEndpoints.create(endpoint("wh_000003", { createdAt: at(3), active: false }));
		const page = await store.webhookEndpoints.list("tnt_000001", { page: 1, perPage: 2 });
		expect([page.items.map((e) => e.id), page.total]).toEqual([["wh_000001", "wh_000002"], 3]);
		expect((await store.webhookEndpoints.listActive("tnt_000001")).map((e) => e.id)).toEqual([
			"wh_000001",
			"wh_000002",
		]);
		const updated = await store.webhookEndpoints.update("tnt_000001", "wh_000003", {
			active: true,
			events: ["*"],
			disabledReason: null,
			updatedAt: at(9),
		});
		expect(updated).toEqual(endpoint("wh_000003", { createdAt: at(3), active: true, events: ["*"], updatedAt: at(9) }));
		expect(await store.webhookEndpoints.listActive("tnt_000001")).toHaveLength(3);
	},
	"webhooks - an endpoint keeps its accountEvents flag; update sets it alone or with the events": async ({ store }) => {
		await store.webhookEndpoints.create(endpoint("wh_000001", { accountEvents: true, events: ["*"] }));
		await store.webhookEndpoints.create(endpoint("wh_000002"));
		expect(await store.webhookEndpoints.get("tnt_000001", "wh_000001")).toEqual(
			endpoint("wh_000001", { accountEvents: true, events: ["*"] }),
		);
		const flags = async (read: Promise<{ id: string; accountEvents: boolean }[]>) =>
			(await read).map((e) => [e.id, e.accountEvents]);
		expect(await flags(store.webhookEndpoints.listActive("tnt_000001"))).toEqual([
			["wh_000001", true],
			["wh_000002", false],
		]);
		const page = store.webhookEndpoints.list("tnt_000001", { page: 1, perPage: 10 }).then((p) => p.items);
		expect(await flags(page)).toEqual([
			["wh_000001", true],
			["wh_000002", false],
		]);
		const cleared = await store.webhookEndpoints.update("tnt_000001", "wh_000001", {
			events: ["message.*"],
			accountEvents: false,
			updatedAt: at(1),
		});
		expect(cleared).toMatchObject({ events: ["message.*"], accountEvents: false });
		const set = await store.webhookEndpoints.update("tnt_000001", "wh_000002", {
			accountEvents: true,
			updatedAt: at(2),
		});
		expect(set).toMatchObject({ events: ["message.*", "partner.created"], accountEvents: true });
		// Changing something else leaves the flag as it is.
		expect(
			await store.webhookEndpoints.update("tnt_000001", "wh_000002", { active: false, updatedAt: at(3) }),
		).toMatchObject({ active: false, accountEvents: true });
	},
	"webhooks - an event's fan-out job is written only while a tenant of its account has an active endpoint": async ({
		store,
	}) => {
		const append = (accountId: string, t: number) =>
			store.events.appendNewWithFanOut(
				{ accountId, tenantId: null, kind: "account.updated", data: {}, environment: "live", createdAt: at(t) },
				{ kind: "webhook.fan_out", runAt: at(t + 1) },
			);
		const fanOuts = async () =>
			(await store.jobs.list({ kind: "webhook.fan_out" })).map((job) => [
				job.payload.eventId,
				job.runAt,
				job.createdAt,
			]);
		expect(await append("acc_000001", 1)).toEqual({ id: "evt_000001", fanOut: false });
		await store.webhookEndpoints.create(endpoint("wh_000001", { active: false }));
		expect(await append("acc_000001", 2)).toEqual({ id: "evt_000002", fanOut: false });
		// Another tenant's endpoint counts: account-level events reach it (accountEvents).
		await store.webhookEndpoints.create(endpoint("wh_000002", { tenantId: "tnt_000002" }));
		expect(await append("acc_000001", 3)).toEqual({ id: "evt_000003", fanOut: true });
		expect(await append("acc_000002", 4)).toEqual({ id: "evt_000004", fanOut: false });
		await store.webhookEndpoints.update("tnt_000002", "wh_000002", { active: false, updatedAt: at(5) });
		// In a transaction, the endpoint it activates counts at once.
		expect(
			await store.transaction(async (tx) => {
				await tx.webhookEndpoints.update("tnt_000001", "wh_000001", { active: true, updatedAt: at(6) });
				return tx.events.appendNewWithFanOut(
					{
						accountId: "acc_000001",
						tenantId: "tnt_000001",
						kind: "tenant.updated",
						data: { id: "tnt_000001" },
						environment: "live",
						createdAt: at(6),
					},
					{ kind: "webhook.fan_out", runAt: at(7) },
				);
			}),
		).toEqual({ id: "evt_000005", fanOut: true });
		expect(await fanOuts()).toEqual([
			["evt_000003", at(4), at(3)],
			["evt_000005", at(7), at(6)],
		]);
		const [job] = await store.jobs.list({ kind: "webhook.fan_out" });
		expect(job).toMatchObject({
			payload: { eventId: "evt_000003" },
			key: null,
			priority: 0,
			attempts: 0,
			lockedBy: null,
		});
		expect((await store.events.get("evt_000005"))?.data).toEqual({ id: "tnt_000001" });
	},
	"webhooks - each event of a transaction sees the endpoints as the transaction has them then": async ({ store }) => {
		// The SQLite adapter checks once a body and account (active-endpoint-answers.ts): what the
		// body writes to its endpoints, and what committed before another body, must still count.
		const fansOut = (tx: As2Store, t: number) =>
			tx.events
				.appendNewWithFanOut(
					{
						accountId: "acc_000001",
						tenantId: "tnt_000001",
						kind: "tenant.updated",
						data: { id: "tnt_000001" },
						environment: "live",
						createdAt: at(t),
					},
					{ kind: "webhook.fan_out", runAt: at(t) },
				)
				.then((written) => written.fanOut);
		const inOneTransaction = await store.transaction(async (tx) => {
			const seen = [await fansOut(tx, 1), await fansOut(tx, 2)];
			await tx.webhookEndpoints.create(endpoint("wh_000001"));
			seen.push(await fansOut(tx, 3), await fansOut(tx, 4));
			await tx.webhookEndpoints.update("tnt_000001", "wh_000001", { active: false, updatedAt: at(5) });
			seen.push(await fansOut(tx, 5));
			await tx.webhookEndpoints.update("tnt_000001", "wh_000001", { active: true, updatedAt: at(6) });
			seen.push(await fansOut(tx, 6));
			await tx.webhookEndpoints.delete("tnt_000001", "wh_000001");
			seen.push(await fansOut(tx, 7));
			return seen;
		});
		expect(inOneTransaction).toEqual([false, false, true, true, false, true, false]);
		await store.webhookEndpoints.create(endpoint("wh_000002"));
		// A nested transaction is the same transaction: what it writes counts for the outer body.
		expect(
			await store.transaction(async (tx) => {
				const before = await fansOut(tx, 10);
				await tx.transaction((inner) =>
					inner.webhookEndpoints.update("tnt_000001", "wh_000002", { active: false, updatedAt: at(10) }),
				);
				return [before, await fansOut(tx, 11)];
			}),
		).toEqual([true, false]);
		// Across transactions, each sees what committed before it, whoever wrote it.
		await store.webhookEndpoints.update("tnt_000001", "wh_000002", { active: true, updatedAt: at(12) });
		expect(await store.transaction(async (tx) => [await fansOut(tx, 12), await fansOut(tx, 13)])).toEqual([true, true]);
		await store.webhookEndpoints.update("tnt_000001", "wh_000002", { active: false, updatedAt: at(14) });
		expect(await store.transaction(async (tx) => [await fansOut(tx, 14), await fansOut(tx, 15)])).toEqual([
			false,
			false,
		]);
		await store.webhookEndpoints.create(endpoint("wh_000003", { tenantId: "tnt_000002" }));
		expect(await store.transaction((tx) => fansOut(tx, 16))).toBe(true);
		const jobs = (await store.jobs.list({ kind: "webhook.fan_out" })).map((job) => job.createdAt.getTime());
		expect(jobs.sort((a, b) => a - b)).toEqual([3, 4, 6, 10, 12, 13, 16].map((t) => at(t).getTime()));
	},
	"webhooks - recordAttempt counts attempts and tracks the failure streak": async ({ store }) => {
		await store.webhookEndpoints.create(endpoint("wh_000001"));
		const fail = (t: number, responseTimeMs: number | null) =>
			store.webhookEndpoints.recordAttempt("tnt_000001", "wh_000001", { succeeded: false, responseTimeMs, at: at(t) });
		expect((await fail(10, 100))?.failingSince).toEqual(at(10));
		expect((await fail(20, null))?.failingSince).toEqual(at(10));
		const healed = await store.webhookEndpoints.recordAttempt("tnt_000001", "wh_000001", {
			succeeded: true,
			responseTimeMs: 50,
			at: at(30),
		});
		expect(healed?.failingSince).toBeNull();
		expect((await fail(40, 30))?.failingSince).toEqual(at(40));
		// An attempt that finishes late does not move the last attempt back.
		await store.webhookEndpoints.recordAttempt("tnt_000001", "wh_000001", {
			succeeded: true,
			responseTimeMs: 20,
			at: at(35),
		});
		expect(await store.webhookEndpoints.stats("tnt_000001")).toEqual([
			{
				endpointId: "wh_000001",
				url: "https://hooks.example.com/wh_000001",
				attempts: 5,
				succeeded: 2,
				failed: 3,
				responseTimeTotalMs: 200,
				responses: 4,
				lastAttemptAt: at(40),
			},
		]);
		expect(await store.webhookEndpoints.stats("tnt_000002")).toEqual([]);
	},
	"webhooks - a delivery is created once per event and endpoint; test deliveries never collide": async ({ store }) => {
		const first = delivery({ eventId: "evt_000009" });
		expect(await store.webhookDeliveries.create(first)).toBe(true);
		expect(await store.webhookDeliveries.create(delivery({ eventId: "evt_000009" }))).toBe(false);
		expect(await store.webhookDeliveries.create(delivery({ eventId: "evt_000009", endpointId: "wh_000002" }))).toBe(
			true,
		);
		expect(await store.webhookDeliveries.create(delivery({ eventId: null, eventKind: "webhook.test" }))).toBe(true);
		expect(await store.webhookDeliveries.create(delivery({ eventId: null, eventKind: "webhook.test" }))).toBe(true);
		expect(await store.webhookDeliveries.get("tnt_000001", first.id)).toEqual(first);
		expect(await store.webhookDeliveries.get("tnt_000002", first.id)).toBeNull();
	},
	"webhooks - claimDue takes due pending deliveries of active endpoints, earliest due first; paused ones wait": async ({
		store,
	}) => {
		await store.webhookEndpoints.create(endpoint("wh_000001"));
		await store.webhookEndpoints.create(endpoint("wh_000002"));
		await store.webhookEndpoints.create(endpoint("wh_000003", { active: false }));
		await store.webhookDeliveries.create(delivery({ endpointId: "wh_000003" }));
		const late = delivery({ nextAttemptAt: at(5) });
		const early = delivery({ nextAttemptAt: at(1), endpointId: "wh_000002" });
		const future = delivery({ nextAttemptAt: at(100) });
		const finished = delivery({ status: "succeeded", nextAttemptAt: null });
		const paused = delivery({ nextAttemptAt: null });
		for (const d of [late, early, future, finished, paused]) await store.webhookDeliveries.create(d);
		const claimed = await claim(store, "w1", at(10));
		expect(claimed.map((d) => d.id)).toEqual([early.id, late.id]);
		expect(claimed[0]).toMatchObject({ lockedBy: "w1", lockedUntil: at(70), body: early.body, status: "pending" });
	},
	"webhooks - deliveries with one ordering key go out one at a time, in order; a final one lets the next go": async ({
		store,
	}) => {
		await store.webhookEndpoints.create(endpoint("wh_000001"));
		await store.webhookEndpoints.create(endpoint("wh_000002"));
		const sent = delivery({ orderingKey: "msg_000001", eventKind: "message.sent" });
		const delivered = delivery({ orderingKey: "msg_000001", eventKind: "message.delivered" });
		const other = delivery({ orderingKey: "msg_000002" });
		const unordered = delivery();
		// Its own endpoint: ordered per endpoint, not across them.
		const elsewhere = delivery({ orderingKey: "msg_000001", endpointId: "wh_000002" });
		for (const d of [sent, delivered, other, unordered, elsewhere]) await store.webhookDeliveries.create(d);
		const first = await claim(store, "w1", at(10));
		expect(first.map((d) => d.id).sort()).toEqual([sent.id, other.id, unordered.id, elsewhere.id].sort());
		// While the first waits for a retry, the next still waits for it.
		const retry = { attempt: attempt(sent), status: "pending" as const, nextAttemptAt: at(20), updatedAt: at(11) };
		expect(await store.webhookDeliveries.finishAttempt("tnt_000001", sent.id, "w1", retry)).toBe(true);
		expect((await claim(store, "w2", at(15))).map((d) => d.id)).toEqual([]);
		expect((await claim(store, "w2", at(21))).map((d) => d.id)).toEqual([sent.id]);
		const done = {
			attempt: attempt(sent, { attempt: 2 }),
			status: "succeeded" as const,
			nextAttemptAt: null,
			updatedAt: at(22),
		};
		expect(await store.webhookDeliveries.finishAttempt("tnt_000001", sent.id, "w2", done)).toBe(true);
		expect((await claim(store, "w3", at(23))).map((d) => d.id)).toEqual([delivered.id]);
	},
	"webhooks - an endpoint at its cap never keeps other endpoints' deliveries from a claim": async ({ store }) => {
		for (const id of ["wh_000001", "wh_000002", "wh_000003"]) await store.webhookEndpoints.create(endpoint(id));
		for (let i = 0; i < 300; i++) await store.webhookDeliveries.create(delivery({ nextAttemptAt: at(1) }));
		const others = [delivery({ endpointId: "wh_000002", nextAttemptAt: at(2) })];
		others.push(delivery({ endpointId: "wh_000003", nextAttemptAt: at(3) }));
		for (const d of others) await store.webhookDeliveries.create(d);
		const first = await claim(store, "w1", at(10), 4, 4);
		expect(first.map((d) => d.endpointId)).toEqual(["wh_000001", "wh_000001", "wh_000001", "wh_000001"]);
		const second = await claim(store, "w2", at(10), 4, 4);
		expect(second.map((d) => d.id)).toEqual(others.map((d) => d.id));
	},
	"webhooks - pause and resume an endpoint's pending deliveries, leaving held ones alone": async ({ store }) => {
		await store.webhookEndpoints.create(endpoint("wh_000001"));
		await store.webhookEndpoints.create(endpoint("wh_000002"));
		const held = delivery();
		const waiting = delivery({ nextAttemptAt: at(50) });
		const done = delivery({ status: "succeeded", nextAttemptAt: null });
		const elsewhere = delivery({ endpointId: "wh_000002" });
		for (const d of [held, waiting, done, elsewhere]) await store.webhookDeliveries.create(d);
		await claim(store, "w1", T0, 1);
		expect(await store.webhookDeliveries.pause("tnt_000001", "wh_000001", at(1))).toBe(1);
		expect(await store.webhookDeliveries.pause("tnt_000002", "wh_000002", at(1))).toBe(0);
		expect((await store.webhookDeliveries.get("tnt_000001", waiting.id))?.nextAttemptAt).toBeNull();
		expect((await store.webhookDeliveries.get("tnt_000001", held.id))?.nextAttemptAt).toEqual(T0);
		expect((await claim(store, "w2", at(50))).map((d) => d.id)).toEqual([elsewhere.id]);
		// The attempt holding one finds the endpoint inactive and releases it paused.
		await store.webhookDeliveries.release("tnt_000001", held.id, "w1", null);
		expect(await store.webhookDeliveries.resume("tnt_000001", "wh_000001", at(200))).toBe(2);
		expect((await store.webhookDeliveries.get("tnt_000001", done.id))?.nextAttemptAt).toBeNull();
		const resumed = (await claim(store, "w3", at(200))).filter((d) => d.endpointId === "wh_000001");
		expect(resumed.map((d) => d.id)).toEqual([held.id, waiting.id]);
	},
	"webhooks - a held delivery is not claimed again until its lease expires; finishing needs the lease": async ({
		store,
	}) => {
		await store.webhookEndpoints.create(endpoint("wh_000001"));
		const d = delivery();
		await store.webhookDeliveries.create(d);
		expect(await claim(store, "w1", T0)).toHaveLength(1);
		expect(await claim(store, "w2", at(59))).toHaveLength(0);
		expect((await claim(store, "w2", at(61))).map((x) => x.lockedBy)).toEqual(["w2"]);
		const outcome = { attempt: attempt(d), status: "failed" as const, nextAttemptAt: null, updatedAt: at(62) };
		expect(await store.webhookDeliveries.finishAttempt("tnt_000001", d.id, "w1", outcome)).toBe(false);
		expect(await store.webhookDeliveries.listAttempts("tnt_000001", [d.id])).toEqual([]);
		expect(await store.webhookDeliveries.finishAttempt("tnt_000001", d.id, "w2", outcome)).toBe(true);
	},
	"webhooks - concurrent claimers never share a delivery nor exceed the per-endpoint cap": async ({ store }) => {
		await store.webhookEndpoints.create(endpoint("wh_000001"));
		await store.webhookEndpoints.create(endpoint("wh_000002"));
		for (let i = 0; i < 10; i++) await store.webhookDeliveries.create(delivery({ endpointId: "wh_000001" }));
		for (let i = 0; i < 10; i++) await store.webhookDeliveries.create(delivery({ endpointId: "wh_000002" }));
		const batches = await Promise.all(Array.from({ length: 6 }, (_, w) => claim(store, `w${w}`, T0, 2, 3)));
		const claimed = batches.flat();
		expect(new Set(claimed.map((d) => d.id)).size).toBe(claimed.length);
		expect(claimed.filter((d) => d.endpointId === "wh_000001")).toHaveLength(3);
		expect(claimed.filter((d) => d.endpointId === "wh_000002")).toHaveLength(3);
		// Finishing one frees one place under the cap.
		const [one] = claimed.filter((d) => d.endpointId === "wh_000001");
		await store.webhookDeliveries.finishAttempt("tnt_000001", one!.id, one!.lockedBy!, {
			attempt: attempt(one!, { succeeded: true, responseStatus: 200, error: null }),
			status: "succeeded",
			nextAttemptAt: null,
			updatedAt: at(1),
		});
		expect((await claim(store, "w9", at(1), 10, 3)).map((d) => d.endpointId)).toEqual(["wh_000001"]);
	},
	"webhooks - finishAttempt records the attempt and the next state; release unlocks, due again": async ({ store }) => {
		await store.webhookEndpoints.create(endpoint("wh_000001"));
		const d = delivery();
		await store.webhookDeliveries.create(d);
		await claim(store, "w1");
		const first = attempt(d);
		expect(
			await store.webhookDeliveries.finishAttempt("tnt_000001", d.id, "w1", {
				attempt: first,
				status: "pending",
				nextAttemptAt: at(15),
				updatedAt: at(1),
			}),
		).toBe(true);
		expect(await store.webhookDeliveries.get("tnt_000001", d.id)).toEqual({
			...d,
			attempts: 1,
			nextAttemptAt: at(15),
			lastAttemptAt: at(1),
			lastResponseStatus: 500,
			lastError: "HTTP 500",
			updatedAt: at(1),
		});
		expect(await claim(store, "w1", at(14))).toHaveLength(0);
		const [again] = await claim(store, "w1", at(15));
		const second = attempt(again!, { succeeded: true, responseStatus: 204, error: null, attemptedAt: at(16) });
		await store.webhookDeliveries.finishAttempt("tnt_000001", d.id, "w1", {
			attempt: second,
			status: "succeeded",
			nextAttemptAt: null,
			updatedAt: at(16),
		});
		expect(await store.webhookDeliveries.listAttempts("tnt_000001", [d.id])).toEqual([first, second]);
		expect(await store.webhookDeliveries.listAttempts("tnt_000002", [d.id])).toEqual([]);
		const other = delivery();
		await store.webhookDeliveries.create(other);
		await claim(store, "w1", at(20));
		await store.webhookDeliveries.release("tnt_000001", other.id, "w2", at(30));
		expect(await store.webhookDeliveries.get("tnt_000001", other.id)).toMatchObject({ lockedBy: "w1" });
		await store.webhookDeliveries.release("tnt_000001", other.id, "w1", at(30));
		expect(await store.webhookDeliveries.get("tnt_000001", other.id)).toMatchObject({
			lockedBy: null,
			lockedUntil: null,
			nextAttemptAt: at(30),
		});
	},
	"webhooks - requeue makes a delivery due again, but not one an attempt holds": async ({ store }) => {
		await store.webhookEndpoints.create(endpoint("wh_000001"));
		const done = delivery({ status: "failed", attempts: 6, nextAttemptAt: null });
		const inFlight = delivery();
		await store.webhookDeliveries.create(done);
		await store.webhookDeliveries.create(inFlight);
		expect(await claim(store, "w1")).toHaveLength(1);
		expect(await store.webhookDeliveries.requeue("tnt_000001", inFlight.id, at(1))).toBeNull();
		expect(await store.webhookDeliveries.requeue("tnt_000002", done.id, at(1))).toBeNull();
		expect(await store.webhookDeliveries.requeue("tnt_000001", done.id, at(1))).toMatchObject({
			status: "pending",
			nextAttemptAt: at(1),
			attempts: 6,
		});
		expect((await claim(store, "w2", at(1))).map((d) => d.id)).toEqual([done.id]);
		// Once the lease has run out, the held one may be requeued too.
		expect(await store.webhookDeliveries.requeue("tnt_000001", inFlight.id, at(61))).not.toBeNull();
	},
	"webhooks - deliveries list newest first per endpoint, filtered by status": async ({ store }) => {
		const a = delivery();
		const b = delivery({ status: "succeeded" });
		const c = delivery();
		const elsewhere = delivery({ endpointId: "wh_000002" });
		for (const d of [a, b, c, elsewhere]) await store.webhookDeliveries.create(d);
		const page = await store.webhookDeliveries.list("tnt_000001", "wh_000001", { page: 1, perPage: 2 });
		expect([page.items.map((d) => d.id), page.total]).toEqual([[c.id, b.id], 3]);
		const pending = await store.webhookDeliveries.list(
			"tnt_000001",
			"wh_000001",
			{ page: 1, perPage: 10 },
			{ status: "pending" },
		);
		expect(pending.items.map((d) => d.id)).toEqual([c.id, a.id]);
		expect((await store.webhookDeliveries.list("tnt_000002", "wh_000001", { page: 1, perPage: 10 })).total).toBe(0);
	},
	"webhooks - deliveries list leaves out the event categories asked, counting only the rest": async ({ store }) => {
		const kinds = ["message.sent", "tenant.created", "billing.usage_threshold", "account.updated", "partner.created"];
		const made = kinds.map((eventKind) => delivery({ eventKind, body: JSON.stringify({ event: eventKind }) }));
		for (const d of made) await store.webhookDeliveries.create(d);
		const except = (exceptCategories: string[], status?: "pending") =>
			store.webhookDeliveries
				.list("tnt_000001", "wh_000001", { page: 1, perPage: 10 }, { exceptCategories, ...(status ? { status } : {}) })
				.then((page) => [page.items.map((d) => d.eventKind), page.total]);
		expect(await except(["account", "tenant", "billing"])).toEqual([["partner.created", "message.sent"], 2]);
		expect(await except(["account", "tenant", "billing"], "pending")).toEqual([["partner.created", "message.sent"], 2]);
		expect(await except(["message"])).toEqual([
			["partner.created", "account.updated", "billing.usage_threshold", "tenant.created"],
			4,
		]);
		// A category is the whole part before the dot, not a prefix of it.
		expect(await except(["ten", "bill"])).toEqual([[...kinds].reverse(), 5]);
		expect(await except([])).toEqual([[...kinds].reverse(), 5]);
	},
	"webhooks - deleting an endpoint removes its deliveries and attempts": async ({ store }) => {
		await store.webhookEndpoints.create(endpoint("wh_000001"));
		await store.webhookEndpoints.create(endpoint("wh_000002"));
		const gone = delivery();
		const kept = delivery({ endpointId: "wh_000002" });
		await store.webhookDeliveries.create(gone);
		await store.webhookDeliveries.create(kept);
		await claim(store, "w1");
		for (const d of [gone, kept]) {
			await store.webhookDeliveries.finishAttempt("tnt_000001", d.id, "w1", {
				attempt: attempt(d),
				status: "failed",
				nextAttemptAt: null,
				updatedAt: at(1),
			});
		}
		expect(await store.webhookEndpoints.delete("tnt_000001", "wh_000001")).toBe(true);
		expect(await store.webhookEndpoints.get("tnt_000001", "wh_000001")).toBeNull();
		expect(await store.webhookDeliveries.get("tnt_000001", gone.id)).toBeNull();
		expect(await store.webhookDeliveries.listAttempts("tnt_000001", [gone.id, kept.id])).toHaveLength(1);
		expect(await store.webhookEndpoints.delete("tnt_000001", "wh_000001")).toBe(false);
	},
	"webhooks - purgeFinished deletes old finished deliveries with their attempts, never pending ones": async ({
		store,
	}) => {
		await store.webhookEndpoints.create(endpoint("wh_000001"));
		const old = delivery({ status: "succeeded", nextAttemptAt: null, updatedAt: at(1) });
		const oldFailed = delivery({ status: "failed", nextAttemptAt: null, updatedAt: at(2) });
		const recent = delivery({ status: "succeeded", nextAttemptAt: null, updatedAt: at(100) });
		const pending = delivery({ nextAttemptAt: at(1000), updatedAt: at(1) });
		for (const d of [old, oldFailed, recent, pending]) await store.webhookDeliveries.create(d);
		expect(await store.webhookDeliveries.purgeFinished(at(50), 1)).toBe(1);
		expect(await store.webhookDeliveries.get("tnt_000001", old.id)).toBeNull();
		expect(await store.webhookDeliveries.purgeFinished(at(50), 10)).toBe(1);
		expect(await store.webhookDeliveries.purgeFinished(at(50), 10)).toBe(0);
		expect(await store.webhookDeliveries.get("tnt_000001", recent.id)).not.toBeNull();
		expect(await store.webhookDeliveries.get("tnt_000001", pending.id)).not.toBeNull();
	},
} satisfies Record<string, ConformanceTest>;
