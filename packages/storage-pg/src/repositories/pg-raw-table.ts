import { getTableColumns, getTableName } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { TextRow } from "../undescribed-query.ts";

/**
 * The column types a row read as text (`fromText`) decodes. Each column's own driver mapping
 * takes its text as drizzle's node-postgres reads give it for timestamps (`new Date(text)`),
 * and parses integers and JSON text itself; booleans come as `t` / `f`.
 */
const TEXT_DECODED = new Set([
	"PgText",
	"PgTimestamp",
	"PgJson",
	"PgInteger",
	"PgBigInt53",
	"PgBigSerial53",
	"PgBoolean",
]);

/**
 * Plain SQL for a table's hottest statements (`Runner.query`): the same column names and the
 * same value encoding as drizzle (each column's own driver mapping), so a row read here equals
 * one read through drizzle. Like storage-sqlite's raw-table.ts, for the statements every
 * message runs, where building them with drizzle costs more than PostgreSQL takes to run them.
 */
export function rawTable<T extends PgTable>(table: T) {
	type Column = (typeof table)["_"]["columns"][string];
	const columns = Object.entries(getTableColumns(table)) as [string, Column][];
	const keyed = new Map(columns);
	const name = getTableName(table);
	const list = columns.map(([, column]) => `"${column.name}"`).join(", ");
	const byKey = (key: string): Column => {
		const column = keyed.get(key);
		if (!column) throw new Error(`${name} has no column for ${key}`);
		return column;
	};
	const toDriver = (key: string, value: unknown) =>
		value === undefined || value === null ? null : byKey(key).mapToDriverValue(value);
	const setClauses = new Map<string, string>();
	let fromTextColumns: (readonly [string, (text: string) => unknown])[] | null = null;
	const textDecoders = () => {
		fromTextColumns ??= columns.map(([key, column]) => {
			if (!TEXT_DECODED.has(column.columnType))
				throw new Error(`${name}.${column.name}: no text decoding for ${column.columnType}`);
			const decode =
				column.columnType === "PgBoolean"
					? (text: string) => text === "t"
					: (text: string) => column.mapFromDriverValue(text);
			return [key, decode] as const;
		});
		return fromTextColumns;
	};
	return {
		name,
		/** `"a", "b", …` in the table's order. */
		columns: list,
		/** `insert into "t" (…) values ($1, …)` of every column but `omit` (generated ones), taking `toParams`. */
		insertSql(omit: readonly string[] = []): string {
			const used = columns.filter(([key]) => !omit.includes(key));
			const names = used.map(([, column]) => `"${column.name}"`).join(", ");
			return `insert into "${name}" (${names}) values (${used.map((_, i) => `$${i + 1}`).join(", ")})`;
		},
		/**
		 * For an `insert into "t" (<names>) select <values> …` of every column but `omit`: the
		 * names, and the values as parameters `$first…` (taking `toParams`' order) cast to each
		 * column's type, as a select list needs them. `wrap` writes a column's value expression from its
		 * parameter and type instead
		 * (message-steps.ts: a stand-in replaced in it).
		 */
		castSelect(
			omit: readonly string[],
			first: number,
			wrap: Partial<Record<string, (param: string, type: string) => string>> = {},
		): { names: string; values: string } {
			const used = columns.filter(([key]) => !omit.includes(key));
			return {
				names: used.map(([, column]) => `"${column.name}"`).join(", "),
				values: used
					.map(([key, column], i) => {
						const param = `$${first + i}`;
						const type = column.getSQLType();
						return wrap[key]?.(param, type) ?? `${param}::${type}`;
					})
					.join(", "),
			};
		},
		toParams(record: object, omit: readonly string[] = []): unknown[] {
			return columns
				.filter(([key]) => !omit.includes(key))
				.map(([key]) => toDriver(key, (record as Record<string, unknown>)[key]));
		},
		/**
		 * `"a" = $<first>, "b" = $<first + 1>` for the keys of a patch, with its parameters. The text
		 * depends only on which keys the patch has, so each shape stays one prepared statement.
		 */
		setClause(patch: object, first: number): { sql: string; params: unknown[] } {
			const keys = Object.keys(patch).filter((key) => (patch as Record<string, unknown>)[key] !== undefined);
			if (keys.length === 0) throw new Error(`${name}: an update needs at least one field`);
			const signature = `${first}:${keys.join(",")}`;
			let sql = setClauses.get(signature);
			if (sql === undefined) {
				sql = keys.map((key, i) => `"${byKey(key).name}" = $${first + i}`).join(", ");
				setClauses.set(signature, sql);
			}
			return { sql, params: keys.map((key) => toDriver(key, (patch as Record<string, unknown>)[key])) };
		},
		/** `"alias"."a" as "<prefix>a", …`: this table's columns in a join, named apart from the other table's. */
		aliasedColumns(alias: string, prefix: string): string {
			return columns.map(([, column]) => `"${alias}"."${column.name}" as "${prefix}${column.name}"`).join(", ");
		},
		/** A row read with `columns`, or with `aliasedColumns(…, prefix)`. */
		fromRow(row: Record<string, unknown>, prefix = ""): T["$inferSelect"] {
			const out: Record<string, unknown> = {};
			for (const [key, column] of columns) {
				const value = row[prefix + column.name];
				out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
			}
			return out as T["$inferSelect"];
		},
		/**
		 * A row read as text without Describe (`Runner.query` with a decoder) from a statement that
		 * lists `columns` (or `aliasedColumns`) starting at column `offset`: equal to `fromRow`'s.
		 */
		fromText(row: TextRow, offset = 0): T["$inferSelect"] {
			const decoders = textDecoders();
			if (row.length < offset + decoders.length)
				throw new Error(`${name}: a row of ${row.length} columns, not ${offset + decoders.length}`);
			const out: Record<string, unknown> = {};
			for (let i = 0; i < decoders.length; i++) {
				const [key, decode] = decoders[i]!;
				const text = row[offset + i];
				out[key] = text === null ? null : decode(text!);
			}
			return out as T["$inferSelect"];
		},
		/** How many columns `columns` lists. */
		width: columns.length,
	};
}
