import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EpcisEventFilter, EpcisQueryOptions } from "@as2kit/core/store";
import Database from "better-sqlite3";
import { drizzle as drizzleSqlite } from "drizzle-orm/better-sqlite3";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createPgStore } from "../../packages/storage-pg/src/index.ts";
import { queryEvents as queryPg } from "../../packages/storage-pg/src/repositories/epcis-query.ts";
import * as pgSchema from "../../packages/storage-pg/src/schema.ts";
import { createSqliteStore } from "../../packages/storage-sqlite/src/index.ts";
import { queryEvents as querySqlite } from "../../packages/storage-sqlite/src/repositories/epcis-query.ts";
import * as sqliteSchema from "../../packages/storage-sqlite/src/schema.ts";
import { pgUrl, withDatabase } from "../pg/databases.ts";

/**
 * Issue #17: `MATCH_epc: urn:epc:id:sgtin:0614141.107346.*` (or its idpat form) reaches the
 * store as a prefix of the stored EPC, and must be an index range on the values' lookup
 * index, not a scan of the tenant's values. Each test runs the adapter's own query with
 * drizzle's logger on, then asks the database for the plan of every statement it sent.
 */
const TENANT = "tnt_000001";
const FILTER: EpcisEventFilter = {
	values: [{ kinds: ["epc"], match: { prefixes: ["urn:epc:id:sgtin:0614141.107346."] } }],
};
const OPTIONS: EpcisQueryOptions = { orderBy: "eventTime", direction: "desc", page: { page: 1, perPage: 10 } };

interface Statement {
	query: string;
	params: unknown[];
}
const recorder = (into: Statement[]) => ({
	logQuery: (query: string, params: unknown[]) => {
		into.push({ query, params });
	},
});

describe("epcis MATCH_ prefix patterns use the values' lookup index", () => {
	it("on SQLite: a covering index range on (tenant_id, kind, value)", async () => {
		const dir = mkdtempSync(join(tmpdir(), "as2kit-epcis-plan-"));
		const url = join(dir, "as2.sqlite");
		const store = createSqliteStore({ url });
		const client = new Database(url, { readonly: true });
		try {
			const statements: Statement[] = [];
			const db = drizzleSqlite(client, { schema: sqliteSchema, logger: recorder(statements) });
			querySqlite(db as Parameters<typeof querySqlite>[0], TENANT, FILTER, OPTIONS);
			const plans = statements.map(({ query, params }) =>
				client
					.prepare(`EXPLAIN QUERY PLAN ${query}`)
					.all(...(params as unknown[]))
					.map((row) => (row as { detail: string }).detail),
			);
			const lookups = plans.flat().filter((line) => line.includes("epcis_event_values"));
			expect(lookups.length).toBeGreaterThan(0);
			for (const line of lookups) {
				expect(line).toMatch(
					/^SEARCH v USING COVERING INDEX epcis_event_values_lookup_idx \(tenant_id=\? AND kind=\? AND value>\? AND value<\?\)$/,
				);
			}
		} finally {
			client.close();
			await store.close();
			rmSync(dir, { recursive: true, force: true });
		}
	});

	// Outside CI on a machine without PostgreSQL there is nothing to run against (test/pg/global-setup.ts).
	describe.skipIf(pgUrl() === null)("on PostgreSQL", () => {
		/**
		 * The prefix is a LIKE: a btree range only where the index compares bytes. The test
		 * cluster runs in the C locale, production databases seldom do; so the database here
		 * takes an ICU collation, as `CREATE DATABASE … LOCALE 'en_US.UTF-8'` would give.
		 */
		it("a range on value in the lookup index's Index Cond, in a database whose collation is not C", async () => {
			const maintenance = pgUrl()!;
			const name = `as2kit_t${process.pid}_epcis_plan`;
			const admin = new pg.Client({ connectionString: maintenance });
			await admin.connect();
			let client: pg.Client | undefined;
			try {
				await admin.query(`drop database if exists ${name} with (force)`);
				await admin.query(
					`create database ${name} template template0 encoding 'UTF8' locale_provider icu icu_locale 'en-US' locale 'C'`,
				);
				const url = withDatabase(maintenance, name);
				await (await createPgStore({ url, poolSize: 1 })).close();
				client = new pg.Client({ connectionString: url });
				await client.connect();
				const collation = await client.query(
					"select datlocprovider from pg_database where datname = current_database()",
				);
				expect(collation.rows[0].datlocprovider).toBe("i");
				const statements: Statement[] = [];
				const db = drizzlePg(client, { schema: pgSchema, logger: recorder(statements) });
				await queryPg(db as unknown as Parameters<typeof queryPg>[0], TENANT, FILTER, OPTIONS);
				// The tables are empty: without this, a sequential scan is cheapest and proves nothing.
				await client.query("set enable_seqscan = off");
				const plans: string[] = [];
				for (const { query, params } of statements) {
					const result = await client.query(`EXPLAIN ${query}`, params);
					plans.push(result.rows.map((row: { "QUERY PLAN": string }) => row["QUERY PLAN"]).join("\n"));
				}
				const text = plans.join("\n");
				// The prefix is a range of the lookup index's Index Cond (the LIKE after it only
				// rechecks the rows found), not a Filter over every value of the tenant.
				const lookup = text.split("\n").findIndex((line) => line.includes("using epcis_event_values_lookup_idx"));
				expect(lookup, text).toBeGreaterThanOrEqual(0);
				expect(text.split("\n")[lookup + 1], text).toMatch(
					/Index Cond: .*\(value ~>=~ 'urn:epc:id:sgtin:0614141\.107346\.'::text\) AND \(value ~<~ 'urn:epc:id:sgtin:0614141\.107346\/'::text\)/,
				);
			} finally {
				await client?.end();
				await admin.query(`drop database if exists ${name} with (force)`);
				await admin.end();
			}
		});
	});
});
