import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { transactionChecks } from "@as2kit/core/store";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { type Db, SqliteConnection } from "./connection.ts";

/**
 * Group commit (issue #20, "SQLite group commit (stop 28)" in docs/performance-storage.md):
 * the transactions that end in one turn of the event loop share one COMMIT, and each caller is
 * answered only once that COMMIT succeeded.
 */
let dir: string;
let path: string;
let client: Database.Database;
let connection: SqliteConnection;
/** A second connection to the same file: what another process would see. */
let other: Database.Database;
/** Every statement this process ran, in order, by text. */
const ran: string[] = [];
const statement = Object.getPrototypeOf(new Database(":memory:").prepare("select 1")) as {
	run: (...args: unknown[]) => unknown;
};
const originalRun = statement.run;

beforeAll(() => {
	statement.run = function (this: { source: string }, ...args: unknown[]) {
		ran.push(this.source);
		return originalRun.apply(this, args);
	};
	dir = mkdtempSync(join(tmpdir(), "as2kit-commit-group-"));
	path = join(dir, "db.sqlite");
	client = new Database(path);
	client.pragma("journal_mode = WAL");
	client.pragma("foreign_keys = ON");
	client.exec(`create table parent (id text primary key);
		create table child (id text primary key, parent text references parent (id) deferrable initially deferred);`);
	// No time cap: a loaded machine must not split the groups these tests count.
	connection = new SqliteConnection(drizzle(client) as unknown as Db, 5000, { maxMembers: 64, maxHoldMs: 60_000 });
	other = new Database(path, { readonly: true });
});

afterAll(() => {
	statement.run = originalRun;
	other.close();
	client.close();
	rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
	client.exec("delete from child; delete from parent");
	ran.length = 0;
});

afterEach(async () => {
	await connection.settle();
});

/** A statement of the transaction running on `on` (the transaction's store is its connection's). */
const insertParent = (id: string, on = connection) =>
	on.runInTransaction((db) => db.$client.prepare("insert into parent (id) values (?)").run(id));
const seenByOther = (id: string) => other.prepare("select 1 from parent where id = ?").get(id) !== undefined;
const count = (source: string) => ran.filter((s) => s === source).length;

it("commits the transactions that end in one turn of the event loop once, each in its savepoint", async () => {
	await Promise.all(Array.from({ length: 10 }, (_, i) => connection.transaction(() => insertParent(`p${i}`))));
	expect(count("COMMIT")).toBe(1);
	expect(count("BEGIN IMMEDIATE")).toBe(1);
	// The first member opened the transaction: undoing it needs no savepoint.
	expect(count("SAVEPOINT member")).toBe(9);
	expect(other.prepare("select count(*) n from parent").get()).toEqual({ n: 10 });
});

it("answers a caller only once another connection sees its writes", async () => {
	const seenWhenAnswered: boolean[] = [];
	await Promise.all(
		Array.from({ length: 5 }, (_, i) =>
			connection.transaction(() => insertParent(`p${i}`)).then(() => seenWhenAnswered.push(seenByOther(`p${i}`))),
		),
	);
	expect(seenWhenAnswered).toEqual([true, true, true, true, true]);
});

it("rolls back a member that throws to its own savepoint: the others commit", async () => {
	const outcomes = await Promise.allSettled([
		connection.transaction(() => insertParent("kept-1")),
		connection.transaction(async () => {
			await insertParent("undone");
			throw new Error("the body failed");
		}),
		connection.transaction(() => insertParent("kept-2")),
	]);
	expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
	expect((outcomes[1] as PromiseRejectedResult).reason).toHaveProperty("message", "the body failed");
	expect(count("COMMIT")).toBe(1);
	expect([seenByOther("kept-1"), seenByOther("undone"), seenByOther("kept-2")]).toEqual([true, false, true]);
});

it("rolls back the transaction a failing first member opened: the next caller opens another", async () => {
	const outcomes = await Promise.allSettled([
		connection.transaction(async () => {
			await insertParent("undone");
			throw new Error("the body failed");
		}),
		connection.transaction(() => insertParent("kept")),
	]);
	expect(outcomes.map((o) => o.status)).toEqual(["rejected", "fulfilled"]);
	expect([seenByOther("undone"), seenByOther("kept")]).toEqual([false, true]);
	expect(count("ROLLBACK")).toBe(1);
	expect(count("BEGIN IMMEDIATE")).toBe(2);
});

it("rejects every member when the group's COMMIT fails, and leaves nothing of theirs", async () => {
	// A deferred foreign key is checked at COMMIT: the one statement that fails there, not before.
	const orphan = connection.transaction(() =>
		connection.runInTransaction((db) =>
			db.$client.prepare("insert into child (id, parent) values ('c', 'missing')").run(),
		),
	);
	const outcomes = await Promise.allSettled([
		connection.transaction(() => insertParent("before")),
		orphan,
		// Queued behind both: the group commits (and fails) before it runs, alone.
		connection.run((db) => db.$client.prepare("insert into parent (id) values ('lone')").run()),
	]);
	expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected", "fulfilled"]);
	for (const outcome of outcomes.slice(0, 2)) {
		expect((outcome as PromiseRejectedResult).reason).toHaveProperty("code", "SQLITE_CONSTRAINT_FOREIGNKEY");
	}
	expect(client.inTransaction).toBe(false);
	expect([seenByOther("before"), seenByOther("lone")]).toEqual([false, true]);
	// The connection goes on: the next transaction opens a group of its own.
	await connection.transaction(() => insertParent("after"));
	expect(seenByOther("after")).toBe(true);
});

it("fails the members before one whose error ended the whole transaction (SQLite rolled it back)", async () => {
	const outcomes = await Promise.allSettled([
		connection.transaction(() => insertParent("lost")),
		connection.transaction(async () => {
			// What SQLITE_FULL or an I/O error do to the open transaction.
			client.prepare("ROLLBACK").run();
			throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
		}),
	]);
	expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
	expect((outcomes[0] as PromiseRejectedResult).reason).toHaveProperty("code", "SQLITE_FULL");
	expect(seenByOther("lost")).toBe(false);
	await connection.transaction(() => insertParent("after"));
	expect(seenByOther("after")).toBe(true);
});

it("commits a pending group before a lone statement runs: it reads committed data, at once", async () => {
	let committedWhenRead: boolean | undefined;
	const transaction = connection.transaction(() => insertParent("p"));
	// Queued behind the transaction: it runs once the body ended, while the group is pending.
	const rows = await connection.run((db) => {
		committedWhenRead = seenByOther("p");
		return db.$client.prepare("select id from parent").all();
	});
	await transaction;
	expect(rows).toEqual([{ id: "p" }]);
	expect(committedWhenRead).toBe(true);
	// (The read itself runs with .all(), which is not counted.)
	expect(ran).toEqual(["BEGIN IMMEDIATE", "insert into parent (id) values (?)", "COMMIT", "BEGIN", "COMMIT"]);
});

it("keeps a group to 64 members, and a lone statement with no group open commits alone", async () => {
	await Promise.all(Array.from({ length: 150 }, (_, i) => connection.transaction(() => insertParent(`p${i}`))));
	const sizes: number[] = [];
	let members = 0;
	for (const source of ran) {
		if (source.startsWith("insert into parent")) members++;
		if (source === "COMMIT") {
			sizes.push(members);
			members = 0;
		}
	}
	expect(sizes.reduce((a, b) => a + b)).toBe(150);
	expect(Math.max(...sizes)).toBe(64);
	ran.length = 0;
	await connection.run((db) => db.$client.prepare("insert into parent (id) values ('alone')").run());
	expect(ran).toEqual(["BEGIN", "insert into parent (id) values ('alone')", "COMMIT"]);
});

it("runs a lone op of one statement without BEGIN and COMMIT, after a pending group's COMMIT", async () => {
	let committedWhenRun: boolean | undefined;
	const transaction = connection.transaction(() => insertParent("p"));
	// Queued behind the transaction, like `run`: the group commits before the statement runs.
	await connection.runStatement((db) => {
		committedWhenRun = seenByOther("p");
		return db.$client.prepare("insert into parent (id) values ('alone')").run();
	});
	await transaction;
	expect(committedWhenRun).toBe(true);
	expect(ran).toEqual([
		"BEGIN IMMEDIATE",
		"insert into parent (id) values (?)",
		"COMMIT",
		"insert into parent (id) values ('alone')",
	]);
	// In autocommit, the statement is committed when it is answered.
	expect(seenByOther("alone")).toBe(true);
	expect(client.inTransaction).toBe(false);
});

it("leaves nothing of a lone statement that fails, and refuses a second statement with the check on", async () => {
	await connection.runStatement((db) => db.$client.prepare("insert into parent (id) values ('taken')").run());
	const duplicate = await connection
		.runStatement((db) => db.$client.prepare("insert into parent (id) values ('new'), ('taken')").run())
		.catch((e: unknown) => e);
	expect(duplicate).toHaveProperty("code", "CONFLICT");
	// The row before the conflict went with its statement: a statement is atomic by itself.
	expect(seenByOther("new")).toBe(false);
	expect(client.inTransaction).toBe(false);

	const checked = new SqliteConnection(drizzle(client) as unknown as Db, 5000, undefined, transactionChecks(true));
	const twice = await checked
		.runStatement((db) => {
			db.$client.prepare("insert into parent (id) values ('first')").run();
			db.$client.prepare("insert into parent (id) values ('second')").run();
		})
		.catch((e: unknown) => e);
	expect(twice).toHaveProperty("message", expect.stringContaining("prepared a second one"));
	expect(seenByOther("second")).toBe(false);
	// One statement passes the check, and the connection's prepare is its own again.
	await checked.runStatement((db) => db.$client.prepare("insert into parent (id) values ('third')").run());
	expect(seenByOther("third")).toBe(true);
	expect(client.prepare("select 1 as one").get()).toEqual({ one: 1 });
});

it("commits a group that has held the write lock for its time cap", async () => {
	const brief = new SqliteConnection(drizzle(client) as unknown as Db, 5000, { maxMembers: 64, maxHoldMs: 0 });
	await Promise.all(Array.from({ length: 3 }, (_, i) => brief.transaction(() => insertParent(`p${i}`, brief))));
	expect(count("COMMIT")).toBe(3);
});

it("still refuses the root store inside a transaction, with the check on", async () => {
	const checked = new SqliteConnection(drizzle(client) as unknown as Db, 5000, undefined, transactionChecks(true));
	const error = await checked
		.transaction(() => checked.run((db) => db.$client.prepare("select 1").get()))
		.catch((e: unknown) => e);
	expect(error).toHaveProperty("message", expect.stringContaining("root store was used inside a transaction"));
});

it("commits an open group when the store closes", async () => {
	const answered = connection.transaction(() => insertParent("closing"));
	await Promise.resolve();
	await connection.settle();
	await answered;
	expect(seenByOther("closing")).toBe(true);
});
