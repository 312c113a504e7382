/**
 * Many messages stored at once, for tests that need a table past a count (the list's count
 * limit, 10,000): on SQLite through the store in one transaction (2 s for 10,021), on
 * PostgreSQL by multi-row INSERTs in one transaction, the store's own columns and value
 * encoding (its raw table), because 10,021 single-row statements took 41 s there at load 15,
 * close under the test's 60 s limit.
 */
import type { As2Store, MessageRecord } from "@as2kit/core/store";
import pg from "pg";
import { TEST_DATABASE_URL } from "../../../../test/pg/deferred-store.ts";
import { rawTable } from "../../../storage-pg/src/repositories/pg-raw-table.ts";
import { messages } from "../../../storage-pg/src/schema.ts";

const RAW_MESSAGES = rawTable(messages);
/** Rows per INSERT: their parameters stay far below PostgreSQL's 65,535. */
const ROWS_PER_INSERT = 500;

export async function createMessagesInBulk(store: As2Store, records: readonly MessageRecord[]): Promise<void> {
	const databaseUrl = (store as unknown as { [TEST_DATABASE_URL]?: Promise<string> })[TEST_DATABASE_URL];
	if (!databaseUrl) {
		await store.transaction(async (tx) => {
			for (const record of records) await tx.messages.create(record);
		});
		return;
	}
	const client = new pg.Client({ connectionString: await databaseUrl });
	await client.connect();
	try {
		await client.query("begin");
		for (let start = 0; start < records.length; start += ROWS_PER_INSERT) {
			const rows = records.slice(start, start + ROWS_PER_INSERT).map((record) => RAW_MESSAGES.toParams(record));
			const width = rows[0]!.length;
			const values = rows.map(
				(_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(", ")})`,
			);
			await client.query(`insert into "messages" (${RAW_MESSAGES.columns}) values ${values.join(", ")}`, rows.flat());
		}
		await client.query("commit");
	} catch (error) {
		await client.query("rollback").catch(() => {});
		throw error;
	} finally {
		await client.end();
	}
}
