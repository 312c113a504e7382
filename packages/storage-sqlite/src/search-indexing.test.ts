import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { As2Store } from "@as2kit/core/store";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { message } from "../../../test/storage/suites/messages.ts";
import { createSqliteStore, type SqliteStoreOptions } from "./create-store.ts";
import { migratedBefore } from "./migrated-before.test-support.ts";

let dir: string;
let url: string;
const opened: Array<{ close(): unknown }> = [];
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "as2kit-search-indexing-"));
	url = join(dir, "as2.sqlite");
});
afterEach(async () => {
	for (const handle of opened.splice(0)) await handle.close();
	rmSync(dir, { recursive: true, force: true });
});

function open(options: Partial<SqliteStoreOptions> = {}): As2Store {
	const store = createSqliteStore({ url, backgroundCheckpoints: false, ...options });
	opened.push(store);
	return store;
}

/** A second connection on the file, to look at the queue and the index as they are. */
function peek() {
	const raw = new Database(url);
	opened.push(raw);
	return {
		queued: () => raw.prepare("SELECT count(*) FROM message_search_pending").pluck().get() as number,
		indexed: (term: string) =>
			raw
				.prepare(
					"SELECT r.message_pk FROM message_search s JOIN message_search_rows r ON r.row = s.rowid WHERE message_search MATCH ? ORDER BY s.rowid",
				)
				.pluck()
				.all(`"${term}"`) as string[],
		raw,
	};
}

const found = async (store: As2Store, search: string) =>
	(await store.messages.list("tnt_000001", { search }, { page: 1, perPage: 50 })).items.map((m) => m.id);

/** Polls `condition`, bounded generously (30 s): a loaded machine indexes slowly. */
async function until(condition: () => boolean): Promise<void> {
	for (const deadline = Date.now() + 30_000; Date.now() < deadline && !condition(); )
		await new Promise((r) => setTimeout(r, 10));
	expect(condition()).toBe(true);
}

describe("search indexing in batches", () => {
	it("queues a new message, and a search indexes the queue before it runs", async () => {
		const store = open({ searchIndexing: false });
		const db = peek();
		await store.messages.create(message("msg_000001", { subject: "Invoice 4711" }));
		expect([db.queued(), db.indexed("4711")]).toEqual([1, []]);

		expect(await found(store, "4711")).toEqual(["msg_000001"]);
		expect([db.queued(), db.indexed("4711")]).toEqual([0, ["msg_000001"]]);
	});

	it("queues a message in its insert's transaction: a failed insert or a rolled-back one queues nothing", async () => {
		const store = open({ searchIndexing: false });
		const db = peek();
		await store.messages.create(message("msg_000001", { subject: "Invoice 4711" }));
		await expect(store.messages.create(message("msg_000001", { subject: "Invoice 4712" }))).rejects.toMatchObject({
			code: "CONFLICT",
		});
		await expect(
			store.transaction(async (tx) => {
				await tx.messages.create(message("msg_000002", { subject: "Invoice 4713" }));
				throw new Error("rolled back");
			}),
		).rejects.toThrow("rolled back");
		expect(db.queued()).toBe(1);
		expect(await found(store, "Invoice")).toEqual(["msg_000001"]);
	});

	it("queues without a trigger on the message's insert (migration 0018: no statement journal per insert)", () => {
		open({ searchIndexing: false });
		const triggers = peek()
			.raw.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'messages' ORDER BY name")
			.pluck()
			.all();
		expect(triggers).toEqual(["messages_search_delete", "messages_search_update"]);
	});

	it("indexes queued messages on its timer, batch after batch, keys in insertion order", async () => {
		const store = open({ searchIndexing: { intervalMs: 10 } });
		const db = peek();
		// More than one batch (100), all in one millisecond: each takes the next key of it.
		await store.transaction(async (tx) => {
			for (let i = 1; i <= 1200; i++) {
				await tx.messages.create(message(`msg_${String(i).padStart(6, "0")}`, { subject: `Order ${i}` }));
			}
		});
		await until(() => db.queued() === 0);
		const all = db.indexed("Order");
		expect(all).toHaveLength(1200);
		expect(all).toEqual([...all].sort());
	});

	it("indexes at most 100 messages a background batch: the event loop is held a few ms at most", async () => {
		const store = open({ searchIndexing: { intervalMs: 10 } });
		const db = peek();
		// Without merges, each segment written stays: the count is the number of batches.
		db.raw.prepare("INSERT INTO message_search (message_search, rank) VALUES ('automerge', 0)").run();
		await store.transaction(async (tx) => {
			for (let i = 1; i <= 250; i++) {
				await tx.messages.create(message(`msg_${String(i).padStart(6, "0")}`, { subject: `Order ${i}` }));
			}
		});
		await until(() => db.queued() === 0);
		expect(db.indexed("Order")).toHaveLength(250);
		expect(db.raw.prepare("SELECT count(DISTINCT segid) FROM message_search_idx").pluck().get()).toBe(3);
	});

	it("writes one FTS5 segment per batch, not one per message", async () => {
		const store = open({ searchIndexing: false });
		const db = peek();
		// Without merges, each segment written stays: the count is the number of flushes.
		db.raw.prepare("INSERT INTO message_search (message_search, rank) VALUES ('automerge', 0)").run();
		await store.transaction(async (tx) => {
			for (let i = 1; i <= 12; i++) {
				await tx.messages.create(message(`msg_${String(i).padStart(6, "0")}`, { subject: `Order ${i}` }));
			}
		});
		expect(await found(store, "Order")).toHaveLength(12);
		const segments = db.raw.prepare("SELECT count(DISTINCT segid) FROM message_search_idx").pluck().get();
		expect(segments).toBe(1);
	});

	it("indexes a message whose subject changed while it waited with the new subject", async () => {
		const store = open({ searchIndexing: false });
		await store.messages.create(message("msg_000001", { subject: "Invoice 4711" }));
		await store.messages.update("msg_000001", { subject: "Credit note 99" });
		expect(await found(store, "4711")).toEqual([]);
		expect(await found(store, "note 99")).toEqual(["msg_000001"]);
	});

	it("takes a deleted message out of the queue", async () => {
		const store = open({ searchIndexing: false });
		const db = peek();
		await store.messages.create(message("msg_000001"));
		db.raw.prepare("DELETE FROM messages WHERE id = ?").run("msg_000001");
		expect(db.queued()).toBe(0);
		expect(await found(store, "msg_000001")).toEqual([]);
	});

	it("keeps what migration 0006 indexed, and queues what comes after 0008", async () => {
		// The database as it was before 0008: migrations 0000–0007 only.
		const before = migratedBefore(url, dir, "0008");
		// A row written by the 0006 trigger, as the previous version stored it.
		const row = message("msg_000001", { subject: "Invoice 4711" });
		const columns = before.prepare("SELECT name FROM pragma_table_info('messages')").pluck().all() as string[];
		before
			.prepare(`INSERT INTO messages (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`)
			.run(...columns.map((column) => sqlValue(row, column)));
		before.close();

		const store = open({ searchIndexing: false });
		const db = peek();
		expect([db.queued(), db.indexed("4711")]).toEqual([0, ["msg_000001"]]);
		await store.messages.create(message("msg_000002", { subject: "Invoice 4711-B", createdAt: new Date(Date.now()) }));
		expect(db.queued()).toBe(1);
		expect(await found(store, "4711")).toEqual(["msg_000002", "msg_000001"]);
	});
});

/** A message field as the messages table stores it (snake_case column, JSON, ms, 0/1). */
function sqlValue(record: object, column: string): unknown {
	const key = column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
	const value = (record as Record<string, unknown>)[key];
	if (value instanceof Date) return value.getTime();
	if (typeof value === "boolean") return value ? 1 : 0;
	if (value !== null && typeof value === "object") return JSON.stringify(value);
	return value ?? null;
}
