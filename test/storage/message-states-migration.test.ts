/**
 * The migration that moves the status columns' indexes of `messages` to `message_states`
 * (storage-pg, stop 33): a database migrated up to the migration before it, holding messages,
 * is upgraded by the adapter's own migrator; every message stays listable by every filter,
 * the MDN timeout scan finds the overdue ones, and moves after the upgrade keep both tables.
 */
import type { MessageListFilter } from "@as2kit/core/store";
import { describe, expect, it } from "vitest";
// The adapter's own encoding of a message row, for the rows written before the upgrade.
import { rawTable } from "../../packages/storage-pg/src/repositories/pg-raw-table.ts";
import { messages as messagesTable } from "../../packages/storage-pg/src/schema.ts";
import { pgUrl } from "../pg/databases.ts";
import { pgUpgradeAcross } from "./pg-upgrade.ts";
import { at } from "./suites/fixtures.ts";
import { expectListed, FILTERS, messages, TENANT } from "./suites/message-filters.ts";

const TAG = "message_states";

describe.skipIf(pgUrl() === null)("the message_states migration", () => {
	it("keeps every stored message listable by every filter, and found by the MDN timeout scan", async () => {
		const all = messages().map((m, i) =>
			i % 6 === 1 ? { ...m, status: "sent" as const, mdnStatus: "pending" as const, mdnDeadline: at(100 * i) } : m,
		);
		await pgUpgradeAcross(
			TAG,
			async (client) => {
				const raw = rawTable(messagesTable);
				for (const m of all) await client.query(raw.insertSql(), raw.toParams(m));
			},
			async ({ client, store: open }) => {
				const { rows } = await client.query<{ n: string }>(`select count(*) as n from "message_states"`);
				expect(Number(rows[0]!.n)).toBe(all.length);

				const store = await open();
				const list = store.messages.list.bind(null, TENANT);
				for (const filter of FILTERS) await expectListed(list, all, filter);
				const overdue = all
					.filter(
						(m) =>
							m.status === "sent" && m.mdnStatus === "pending" && m.mdnDeadline !== null && m.mdnDeadline < at(2000),
					)
					.sort((a, b) => a.mdnDeadline!.getTime() - b.mdnDeadline!.getTime())
					.map((m) => m.id);
				expect(overdue.length).toBeGreaterThan(1);
				expect((await store.messages.listMdnOverdue(at(2000), 100)).map((m) => m.id)).toEqual(overdue);

				// A message stored before the upgrade moves after it, in both tables.
				const moved = await store.messages.transition(overdue[0]!, ["sent"], {
					status: "failed",
					mdnStatus: "timeout",
				});
				expect(moved).toMatchObject({ status: "failed", mdnStatus: "timeout" });
				all[all.findIndex((m) => m.id === moved!.id)] = moved!;
				for (const filter of [
					{ status: "failed" },
					{ status: "sent" },
					{ mdnStatus: "timeout" },
					{ mdnStatus: "pending" },
				] as MessageListFilter[])
					await expectListed(list, all, filter);
			},
		);
	});
});
