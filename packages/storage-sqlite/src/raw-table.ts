import { getTableColumns, getTableName } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";

/**
 * Plain-SQL access to a table for the hottest queries, where building the statement with
 * drizzle costs more than running it: the same column names and the same value encoding
 * (each column's own driver mapping), so rows read here equal rows read through drizzle.
 */
export function rawTable<T extends SQLiteTable>(table: T) {
	const columns = Object.entries(getTableColumns(table)) as [string, (typeof table)["_"]["columns"][string]][];
	const name = getTableName(table);
	const list = columns.map(([, column]) => `"${column.name}"`).join(", ");
	return {
		name,
		/** `"a", "b", …` in the table's order. */
		columns: list,
		/** `insert into "t" ("a", …) values (?, …)` taking `toParams(record)`. */
		insertSql: `insert into "${name}" (${list}) values (${columns.map(() => "?").join(", ")})`,
		toParams(record: object): unknown[] {
			return columns.map(([key, column]) => {
				const value = (record as Record<string, unknown>)[key];
				if (value === undefined || value === null) return null;
				return column.mapToDriverValue(value);
			});
		},
		fromRow(row: Record<string, unknown>): T["$inferSelect"] {
			const out: Record<string, unknown> = {};
			for (const [key, column] of columns) {
				const value = row[column.name];
				out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
			}
			return out as T["$inferSelect"];
		},
	};
}
