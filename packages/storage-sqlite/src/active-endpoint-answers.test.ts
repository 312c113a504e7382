import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { As2Store, EventRecord, WebhookEndpointRecord } from "@as2kit/core/store";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSqliteStore } from "./create-store.ts";

/**
 * An event's webhook check is made once a transaction's body and account
 * (active-endpoint-answers.ts): the sender's outcome writes two events in one transaction
 * (issue #20, stop 31). The conformance suite (webhooks) pins what each event sees on both
 * adapters; this file counts the checks and takes the other instance's side.
 */
const CHECK = `select 1 from "webhook_endpoints" where "account_id" = ? and "active" = 1 limit 1`;
let checks = 0;
const statement = Object.getPrototypeOf(new Database(":memory:").prepare("select 1")) as {
	get: (...args: unknown[]) => unknown;
};
const originalGet = statement.get;
beforeAll(() => {
	statement.get = function (this: { source: string }, ...args: unknown[]) {
		if (this.source === CHECK) checks++;
		return originalGet.apply(this, args);
	};
});
afterAll(() => {
	statement.get = originalGet;
});

let dir: string;
let url: string;
const opened: As2Store[] = [];
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "as2kit-endpoint-answers-"));
	url = join(dir, "as2.sqlite");
	checks = 0;
});
afterEach(async () => {
	for (const store of opened.splice(0)) await store.close();
	rmSync(dir, { recursive: true, force: true });
});

function open(): As2Store {
	const store = createSqliteStore({ url, backgroundCheckpoints: false, searchIndexing: false });
	opened.push(store);
	return store;
}

const event = (accountId: string, second: number): Omit<EventRecord, "id"> => ({
	accountId,
	tenantId: null,
	kind: "account.updated",
	data: {},
	environment: "live",
	createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, second)),
});
const fansOut = (store: As2Store, accountId: string, second: number) =>
	store.events
		.appendNewWithFanOut(event(accountId, second), { kind: "webhook.fan_out", runAt: new Date(0) })
		.then((written) => written.fanOut);

const endpoint = (id: string): WebhookEndpointRecord => ({
	id,
	accountId: "acc_000001",
	tenantId: "tnt_000001",
	url: `https://hooks.example.com/${id}`,
	events: ["*"],
	active: true,
	accountEvents: true,
	secretSealed: `sealed-${id}`,
	failingSince: null,
	disabledReason: null,
	createdAt: new Date(0),
	updatedAt: new Date(0),
});

describe("an event's endpoint check, once a transaction and account", () => {
	it("checks once for the events of one account in one body, once per account", async () => {
		const store = open();
		const seen = await store.transaction(async (tx) => [
			await fansOut(tx, "acc_000001", 1),
			await fansOut(tx, "acc_000001", 2),
			await fansOut(tx, "acc_000002", 3),
			await fansOut(tx, "acc_000001", 4),
		]);
		expect(seen).toEqual([false, false, false, false]);
		expect(checks).toBe(2);
	});

	it("checks again in every body, and for every event on the root store", async () => {
		const store = open();
		await store.transaction((tx) => fansOut(tx, "acc_000001", 1));
		await store.transaction((tx) => fansOut(tx, "acc_000001", 2));
		await fansOut(store, "acc_000001", 3);
		await fansOut(store, "acc_000001", 4);
		expect(checks).toBe(4);
	});

	it("checks again after the body writes an endpoint, and not after it reads one", async () => {
		const store = open();
		await store.transaction(async (tx) => {
			await fansOut(tx, "acc_000001", 1);
			await tx.webhookEndpoints.listActive("tnt_000001");
			await fansOut(tx, "acc_000001", 2);
			expect(checks).toBe(1);
			await tx.webhookEndpoints.recordAttempt("tnt_000001", "wh_000001", {
				succeeded: true,
				responseTimeMs: 1,
				at: new Date(0),
			});
			await fansOut(tx, "acc_000001", 3);
			expect(checks).toBe(2);
		});
	});

	it("checks again for an event called after an endpoint write in the same tick", async () => {
		// A transaction's statement runs when it is called (connection.ts), so the order of the
		// calls is the order of the statements; the write forgets the answer in that same step.
		const store = open();
		const seen = await store.transaction((tx) =>
			Promise.all([
				fansOut(tx, "acc_000001", 1),
				tx.webhookEndpoints.create(endpoint("wh_000001")),
				fansOut(tx, "acc_000001", 2),
				tx.webhookEndpoints.update("tnt_000001", "wh_000001", { active: false, updatedAt: new Date(1) }),
				fansOut(tx, "acc_000001", 3),
			]),
		);
		expect([seen[0], seen[2], seen[4]]).toEqual([false, true, false]);
	});

	it("sees an endpoint another instance committed in its very next transaction", async () => {
		const here = open();
		const there = open();
		expect(
			await here.transaction(async (tx) => [await fansOut(tx, "acc_000001", 1), await fansOut(tx, "acc_000001", 2)]),
		).toEqual([false, false]);
		await there.webhookEndpoints.create(endpoint("wh_000001"));
		expect(
			await here.transaction(async (tx) => [await fansOut(tx, "acc_000001", 3), await fansOut(tx, "acc_000001", 4)]),
		).toEqual([true, true]);
		await there.transaction((tx) =>
			tx.webhookEndpoints.update("tnt_000001", "wh_000001", { active: false, updatedAt: new Date(1) }),
		);
		expect(await here.transaction((tx) => fansOut(tx, "acc_000001", 5))).toBe(false);
	});
});
