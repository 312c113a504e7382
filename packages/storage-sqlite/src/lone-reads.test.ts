import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { As2Store } from "@as2kit/core/store";
import Database from "better-sqlite3";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { createSqliteStore } from "./create-store.ts";

/**
 * The root store's reads of one statement run in autocommit, without a BEGIN … COMMIT of their
 * own (connection.ts, `runStatement`; docs/performance-storage.md, "The receiver's storage
 * (stop 32)"); in a transaction they are its statements, as before.
 */
const T0 = new Date("2026-01-01T00:00:00.000Z");
let dir: string;
let store: As2Store;
/** Every statement this process ran, in order, by text (run, get and all). */
const ran: string[] = [];
const statement = Object.getPrototypeOf(new Database(":memory:").prepare("select 1")) as Record<
	"run" | "get" | "all",
	(...args: unknown[]) => unknown
>;
const originals = { run: statement.run, get: statement.get, all: statement.all };

beforeAll(async () => {
	for (const method of ["run", "get", "all"] as const) {
		statement[method] = function (this: { source: string }, ...args: unknown[]) {
			ran.push(this.source);
			return originals[method].apply(this, args);
		};
	}
	dir = mkdtempSync(join(tmpdir(), "as2kit-lone-reads-"));
	store = createSqliteStore({ url: join(dir, "db.sqlite"), searchIndexing: false, backgroundCheckpoints: false });
	await store.accounts.create({
		id: "acc_1",
		name: "Acme",
		slug: "acme",
		plan: "professional",
		status: "active",
		createdAt: T0,
		updatedAt: T0,
	});
	await store.tenants.create({
		id: "tnt_1",
		accountId: "acc_1",
		name: "Acme",
		slug: "acme",
		as2Id: "ACME",
		status: "active",
		createdAt: T0,
		updatedAt: T0,
	});
});

afterAll(async () => {
	Object.assign(statement, originals);
	await store.close();
	rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
	ran.length = 0;
});

const transactionStatements = () => ran.filter((s) => /^(BEGIN|COMMIT|SAVEPOINT|RELEASE)/.test(s));

it("reads a tenant, an account and a message alone with one statement each, no BEGIN or COMMIT", async () => {
	expect(await store.tenants.findByAs2Id("ACME")).toMatchObject({ id: "tnt_1" });
	expect(await store.tenants.get("acc_1", "tnt_1")).toMatchObject({ as2Id: "ACME" });
	expect(await store.accounts.get("acc_1")).toMatchObject({ slug: "acme" });
	expect(await store.messages.getById("msg_missing")).toBeNull();
	expect(
		await store.messages.findByMessageId("tnt_1", "<m@x>", { direction: "inbound", partnerId: "prt_1" }),
	).toBeNull();
	expect(ran).toHaveLength(5);
	expect(transactionStatements()).toEqual([]);
});

it("reads them as statements of the transaction inside one", async () => {
	await store.transaction(async (tx) => {
		await tx.tenants.findByAs2Id("ACME");
		await tx.accounts.get("acc_1");
		await tx.messages.getById("msg_missing");
	});
	expect(ran).toHaveLength(5);
	expect(transactionStatements()).toEqual(["BEGIN IMMEDIATE", "COMMIT"]);
});

it("commits a pending group before a lone read: it sees the group's writes, committed", async () => {
	const writing = store.transaction((tx) =>
		tx.tenants.create({
			id: "tnt_2",
			accountId: "acc_1",
			name: "Beta",
			slug: "beta",
			as2Id: "BETA",
			status: "active",
			createdAt: T0,
			updatedAt: T0,
		}),
	);
	// Queued behind the transaction's body: it runs while the group is still pending.
	const read = store.tenants.findByAs2Id("BETA");
	await writing;
	expect(await read).toMatchObject({ id: "tnt_2" });
	expect(transactionStatements()).toEqual(["BEGIN IMMEDIATE", "COMMIT"]);
	expect(ran.at(-1)).toContain(`from "tenants" where "as2_id" = ?`);
});
