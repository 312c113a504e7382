/**
 * The migration that moves the status columns' indexes of `messages` to `message_states`
 * (storage-pg, stop 33): a database migrated up to the migration before it, holding messages,
 * is upgraded by the adapter's own migrator; every message stays listable by every filter,
 * the MDN timeout scan finds the overdue ones, and moves after the upgrade keep both tables.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageListFilter } from "@as2kit/core/store";
import { createPgStore } from "@as2kit/storage-pg";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { describe, expect, it } from "vitest";
// The adapter's own encoding of a message row, for the rows written before the upgrade.
import { rawTable } from "../../packages/storage-pg/src/repositories/pg-raw-table.ts";
import { messages as messagesTable } from "../../packages/storage-pg/src/schema.ts";
import { createTestDatabase, pgUrl } from "../pg/databases.ts";
import { migrationsBefore } from "./migrations-before.ts";
import { at } from "./suites/fixtures.ts";
import { expectListed, FILTERS, messages, TENANT } from "./suites/message-filters.ts";

const MIGRATIONS = new URL("../../packages/storage-pg/migrations/", import.meta.url).pathname;
const TAG = "message_states";

describe.skipIf(pgUrl() === null)("the message_states migration", () => {
	it("keeps every stored message listable by every filter, and found by the MDN timeout scan", async () => {
		const scratch = mkdtempSync(join(tmpdir(), "as2kit-message-states-"));
		const database = await createTestDatabase({ unmigrated: true });
		const client = new pg.Client({ connectionString: database.url });
		let store: Awaited<ReturnType<typeof createPgStore>> | null = null;
		try {
			await client.connect();
			const db = drizzle(client);
			await migrate(db, { migrationsFolder: migrationsBefore("storage-pg", TAG, scratch) });
			const all = messages().map((m, i) =>
				i % 6 === 1 ? { ...m, status: "sent" as const, mdnStatus: "pending" as const, mdnDeadline: at(100 * i) } : m,
			);
			const raw = rawTable(messagesTable);
			for (const m of all) await client.query(raw.insertSql(), raw.toParams(m));
			await migrate(db, { migrationsFolder: MIGRATIONS });
			const { rows } = await client.query<{ n: string }>(`select count(*) as n from "message_states"`);
			expect(Number(rows[0]!.n)).toBe(all.length);

			store = await createPgStore({ url: database.url, poolSize: 2 });
			const list = store.messages.list.bind(null, TENANT);
			for (const filter of FILTERS) await expectListed(list, all, filter);
			const overdue = all
				.filter(
					(m) => m.status === "sent" && m.mdnStatus === "pending" && m.mdnDeadline !== null && m.mdnDeadline < at(2000),
				)
				.sort((a, b) => a.mdnDeadline!.getTime() - b.mdnDeadline!.getTime())
				.map((m) => m.id);
			expect(overdue.length).toBeGreaterThan(1);
			expect((await store.messages.listMdnOverdue(at(2000), 100)).map((m) => m.id)).toEqual(overdue);

			// A message stored before the upgrade moves after it, in both tables.
			const moved = await store.messages.transition(overdue[0]!, ["sent"], { status: "failed", mdnStatus: "timeout" });
			expect(moved).toMatchObject({ status: "failed", mdnStatus: "timeout" });
			all[all.findIndex((m) => m.id === moved!.id)] = moved!;
			for (const filter of [
				{ status: "failed" },
				{ status: "sent" },
				{ mdnStatus: "timeout" },
				{ mdnStatus: "pending" },
			] as MessageListFilter[])
				await expectListed(list, all, filter);
		} finally {
			await store?.close();
			await client.end();
			await database.drop();
			rmSync(scratch, { recursive: true, force: true });
		}
	});
});
