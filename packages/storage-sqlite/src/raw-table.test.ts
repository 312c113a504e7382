import Database from "better-sqlite3";
import { type Column, getTableColumns, getTableName, is, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import { afterAll, describe, expect, it } from "vitest";
import { rawTable } from "./raw-table.ts";
import * as schema from "./schema.ts";

const TABLES: SQLiteTable[] = Object.values(schema).filter((value: unknown) => is(value, SQLiteTable));

/** Two values of each column type the schema uses; a new type fails here until it has some. */
function samplesOf(column: Column, name: string): [unknown, unknown] {
	switch (column.columnType) {
		case "SQLiteText":
			return [`${name}-é✓`, ""];
		case "SQLiteTextJson":
			return [{ name, list: [1, "two", null, { deep: true }], text: 'ü\n"q"' }, []];
		case "SQLiteTimestamp":
			return [new Date(Date.UTC(2026, 0, 1, 12, 30, 45, 123)), new Date(0)];
		case "SQLiteBoolean":
			return [true, false];
		case "SQLiteInteger":
			return [42, -7];
		case "SQLiteReal":
			return [1.5, 0];
		default:
			throw new Error(`no sample values for ${column.columnType} (${name})`);
	}
}

const client = new Database(":memory:");
const db = drizzle(client);
afterAll(() => client.close());

/**
 * raw-table.ts writes and reads the hottest rows in plain SQL, calling only the column mappings
 * that are not the identity: what it stores must be byte for byte what drizzle stores, and what
 * it reads what drizzle reads, for every column of every table.
 */
describe.each(TABLES.map((table) => [getTableName(table), table] as const))("%s", (name, table) => {
	const raw = rawTable(table);
	const columns = Object.entries(getTableColumns(table));
	// Untyped columns: SQLite stores what is bound as it is, so quote() shows the bytes bound.
	client.exec(`create table "${name}" (${columns.map(([, column]) => `"${column.name}"`).join(", ")})`);
	const record = (variant: 0 | 1) =>
		Object.fromEntries(columns.map(([key, column]) => [key, samplesOf(column, key)[variant]]));
	const stored = (where: string) =>
		client
			.prepare(
				`select ${columns.map(([, column]) => `quote("${column.name}")`).join(", ")} from "${name}" where ${where}`,
			)
			.raw(true)
			.all();
	const firstKey = columns[0]![0];
	const firstColumn = columns[0]![1];

	it.each([0, 1] as const)(
		"an insert stores what drizzle's does, and reads back as drizzle reads it (values %i)",
		(variant) => {
			client.exec(`delete from "${name}"`);
			const values = record(variant);
			db.insert(table).values(values).run();
			client.prepare(raw.insertSql).run(...raw.toParams(values));
			const [byDrizzle, byRaw] = stored("1 order by rowid");
			expect(byRaw).toEqual(byDrizzle);
			const read = db.select().from(table).all();
			expect(read).toHaveLength(2);
			const rows = client.prepare(`select ${raw.columns} from "${name}" order by rowid`).raw(true).all() as unknown[][];
			expect(rows.map((row) => raw.fromArray(row))).toEqual(read);
			const objects = client.prepare(`select ${raw.columns} from "${name}" order by rowid`).all() as Record<
				string,
				unknown
			>[];
			expect(objects.map((row) => raw.fromRow(row))).toEqual(read);
		},
	);

	it("nulls are stored and read as drizzle stores and reads them", () => {
		client.exec(`delete from "${name}"`);
		const values = Object.fromEntries(columns.map(([key]) => [key, null]));
		client.prepare(raw.insertSql).run(...raw.toParams(values));
		expect(stored("1")).toEqual([columns.map(() => "NULL")]);
		const [row] = client.prepare(`select ${raw.columns} from "${name}"`).raw(true).all() as unknown[][];
		expect(raw.fromArray(row!)).toEqual(db.select().from(table).get());
	});

	it("an update stores what drizzle's does, whichever columns a patch sets", () => {
		for (const keys of [columns.map(([key]) => key), columns.filter((_, i) => i % 2 === 1).map(([key]) => key)]) {
			client.exec(`delete from "${name}"`);
			const start = record(0);
			client.prepare(raw.insertSql).run(...raw.toParams({ ...start, [firstKey]: samplesOf(firstColumn, firstKey)[0] }));
			client.prepare(raw.insertSql).run(...raw.toParams({ ...start, [firstKey]: samplesOf(firstColumn, firstKey)[1] }));
			const patch = Object.fromEntries(keys.map((key) => [key, record(1)[key]]));
			// A null in a patch clears the column; an undefined one is left out.
			patch[keys.at(-1)!] = null;
			// The first column (the two rows' key) is left as it is.
			const without = { ...patch, [firstKey]: undefined };
			const [first, second] = client.prepare(`select rowid from "${name}" order by rowid`).pluck().all();
			db.update(table).set(without).where(sql`rowid = ${first}`).run();
			const set = raw.setClause(without);
			client.prepare(`update "${name}" set ${set.sql} where rowid = ?`).run(...set.params, second);
			const [byDrizzle, byRaw] = stored("1 order by rowid") as unknown[][];
			expect(byRaw!.slice(1)).toEqual(byDrizzle!.slice(1));
		}
	});
});
