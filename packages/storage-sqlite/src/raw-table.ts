import { Column, getTableColumns, getTableName } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";

type Mapping = ((value: unknown) => unknown) | null;

/**
 * A column's own driver mapping (JSON text, epoch milliseconds, 0/1), or null where drizzle's
 * is the identity (plain text, integers, reals): most columns, skipped rather than called for
 * every value of every row (issue #20).
 */
function mappingOf(column: Column, direction: "mapToDriverValue" | "mapFromDriverValue"): Mapping {
	return column[direction] === Column.prototype[direction] ? null : column[direction].bind(column);
}

/**
 * Plain-SQL access to a table for the hottest queries, where building the statement with
 * drizzle costs more than running it: the same column names and the same value encoding
 * (each column's own driver mapping), so rows read here equal rows read through drizzle.
 */
export function rawTable<T extends SQLiteTable>(table: T) {
	const columns = Object.entries(getTableColumns(table)) as [string, (typeof table)["_"]["columns"][string]][];
	const name = getTableName(table);
	const list = columns.map(([, column]) => `"${column.name}"`).join(", ");
	const columnKeys = columns.map(([key]) => key);
	const encoders = columns.map(([, column]) => mappingOf(column, "mapToDriverValue"));
	const decoders = columns.map(([, column]) => mappingOf(column, "mapFromDriverValue"));
	const names = columns.map(([, column]) => column.name);
	const keyed = new Map(columns);
	const byKey = (key: string) => {
		const column = keyed.get(key);
		if (!column) throw new Error(`${name} has no column for ${key}`);
		return column;
	};
	/** By the keys a patch sets: its SET clause and each key's mapping, found once (issue #20). */
	const setClauses = new Map<string, { sql: string; encoders: Mapping[] }>();
	return {
		name,
		/** `"a", "b", …` in the table's order. */
		columns: list,
		/** `insert into "t" ("a", …) values (?, …)` taking `toParams(record)`. */
		insertSql: `insert into "${name}" (${list}) values (${columns.map(() => "?").join(", ")})`,
		toParams(record: object): unknown[] {
			const params = new Array<unknown>(columnKeys.length);
			for (let i = 0; i < columnKeys.length; i++) {
				const value = (record as Record<string, unknown>)[columnKeys[i]!];
				const encode = encoders[i];
				params[i] = value === undefined || value === null ? null : encode ? encode(value) : value;
			}
			return params;
		},
		/** `"alias"."a", "alias"."b", …`: this table's columns in a join read as arrays (fromArray). */
		qualifiedColumns(alias: string): string {
			return columns.map(([, column]) => `"${alias}"."${column.name}"`).join(", ");
		},
		/**
		 * `"a" = ?, "b" = ?` for the keys of a patch, with its parameters: the SET clause of an
		 * update. The text depends only on which keys the patch has, so statements stay cached.
		 */
		setClause(patch: object): { sql: string; params: unknown[] } {
			const keys = Object.keys(patch).filter((key) => (patch as Record<string, unknown>)[key] !== undefined);
			const signature = keys.join(",");
			let clause = setClauses.get(signature);
			if (clause === undefined) {
				clause = {
					sql: keys.map((key) => `"${byKey(key).name}" = ?`).join(", "),
					encoders: keys.map((key) => mappingOf(byKey(key), "mapToDriverValue")),
				};
				setClauses.set(signature, clause);
			}
			const params = new Array<unknown>(keys.length);
			for (let i = 0; i < keys.length; i++) {
				const value = (patch as Record<string, unknown>)[keys[i]!];
				const encode = clause.encoders[i];
				params[i] = value === null ? null : encode ? encode(value) : value;
			}
			return { sql: clause.sql, params };
		},
		/** A row read in raw (array) mode, this table's columns starting at `start`. */
		fromArray(values: unknown[], start = 0): T["$inferSelect"] {
			const out: Record<string, unknown> = {};
			for (let i = 0; i < columnKeys.length; i++) {
				const value = values[start + i];
				const decode = decoders[i];
				out[columnKeys[i]!] = value === null || value === undefined ? null : decode ? decode(value) : value;
			}
			return out as T["$inferSelect"];
		},
		/** Where a column (by its key) is in toParams' values and in a row read as an array. */
		columnIndex(key: string): number {
			byKey(key);
			return columns.findIndex(([name]) => name === key);
		},
		/** How many columns the table has: where the next table's columns start in a join row. */
		width: columns.length,
		fromRow(row: Record<string, unknown>): T["$inferSelect"] {
			const out: Record<string, unknown> = {};
			for (let i = 0; i < columnKeys.length; i++) {
				const value = row[names[i]!];
				const decode = decoders[i];
				out[columnKeys[i]!] = value === null || value === undefined ? null : decode ? decode(value) : value;
			}
			return out as T["$inferSelect"];
		},
	};
}
