import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { As2Store, EventRecord } from "@as2kit/core/store";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteStore } from "./create-store.ts";
import { migratedBefore } from "./migrated-before.test-support.ts";

/**
 * An event's `evt_` id is its own seq (migration 0017, repositories/event-seq.ts): one
 * statement per event and no `sequences` row written (issue #20), with ids still unique,
 * never reused, and in the order events are listed.
 */
let dir: string;
let url: string;
const opened: Array<{ close(): unknown }> = [];
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "as2kit-event-ids-"));
	url = join(dir, "as2.sqlite");
});
afterEach(async () => {
	for (const handle of opened.splice(0)) await handle.close();
	rmSync(dir, { recursive: true, force: true });
});

function open(): As2Store {
	const store = createSqliteStore({ url, backgroundCheckpoints: false, searchIndexing: false });
	opened.push(store);
	return store;
}

function peek(): Database.Database {
	const raw = new Database(url);
	opened.push(raw);
	return raw;
}

const fields = (minute: number): Omit<EventRecord, "id"> => ({
	accountId: "acc_000001",
	tenantId: "tnt_000001",
	kind: "tenant.updated",
	data: { id: "tnt_000001", minute },
	environment: "live",
	createdAt: new Date(Date.UTC(2026, 0, 1, 0, minute)),
});

const listed = async (store: As2Store, afterId?: string) =>
	(await store.events.list({ accountId: "acc_000001", afterId })).map((e) => e.id);

describe("event ids from the events' own seq", () => {
	it("takes an event's id from its seq and writes no sequences row", async () => {
		const store = open();
		const raw = peek();
		const ids = await store.transaction(async (tx) => {
			const first = await tx.events.appendNew(fields(1));
			const second = await tx.events.appendNewWithFanOut(fields(2), { kind: "webhook.fan_out", runAt: new Date() });
			return [first, second.id];
		});
		expect(ids).toEqual(["evt_000001", "evt_000002"]);
		expect(raw.prepare("SELECT seq, id FROM events ORDER BY seq").raw().all()).toEqual([
			[1, "evt_000001"],
			[2, "evt_000002"],
		]);
		expect(raw.prepare("SELECT count(*) FROM sequences WHERE prefix = 'evt_'").pluck().get()).toBe(0);
	});

	it("never reuses an id after the newest events are deleted (retention), nor one ids.next gave", async () => {
		const store = open();
		const raw = peek();
		for (let minute = 1; minute <= 3; minute++) await store.events.appendNew(fields(minute));
		raw.prepare("DELETE FROM events").run();
		expect(await store.ids.next("evt_")).toBe("evt_000004");
		expect(await store.events.appendNew(fields(4))).toBe("evt_000005");
		expect(await store.ids.next("evt_")).toBe("evt_000006");
		expect(await listed(store)).toEqual(["evt_000005"]);
	});

	it("upgrades a database with events: new ids follow every id handed out before, in list order", async () => {
		// The database as migrations 0000–0016 left it: ids from the sequences table, ahead of seq.
		const before = migratedBefore(url, dir, "0017");
		const insert = before.prepare(
			`INSERT INTO events (id, account_id, tenant_id, kind, subject_id, data, environment, created_at)
			VALUES (?, 'acc_000001', 'tnt_000001', 'tenant.updated', 'tnt_000001', '{}', 'live', 0)`,
		);
		for (const id of ["evt_000003", "evt_000005", "evt_000009"]) insert.run(id);
		before.prepare("INSERT INTO sequences (prefix, value) VALUES ('evt_', 7), ('msg_', 40)").run();
		before.close();

		const store = open();
		// 9 is past both the old sequence (7) and every seq (3): the next id is 10.
		const next = await store.events.appendNew(fields(1));
		expect(next).toBe("evt_000010");
		expect(await store.ids.next("evt_")).toBe("evt_000011");
		expect(await store.ids.next("msg_")).toBe("msg_000041");
		expect(await listed(store)).toEqual(["evt_000003", "evt_000005", "evt_000009", "evt_000010"]);
		expect(await listed(store, "evt_000009")).toEqual(["evt_000010"]);
		expect(peek().prepare("SELECT count(*) FROM sequences WHERE prefix = 'evt_'").pluck().get()).toBe(0);
	});

	it("refuses an event when sqlite_sequence has lost its row for events, and writes nothing", async () => {
		const store = open();
		await store.events.appendNew(fields(1));
		const raw = peek();
		raw.prepare("DELETE FROM sqlite_sequence WHERE name = 'events'").run();
		await expect(store.events.appendNew(fields(2))).rejects.toThrow(/sqlite_sequence has no row for events/);
		expect(raw.prepare("SELECT count(*) FROM events").pluck().get()).toBe(1);
	});
});
