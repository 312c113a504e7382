import type { PgTable } from "drizzle-orm/pg-core";
import type { rawTable } from "./pg-raw-table.ts";

/**
 * An insert that takes its row's `<prefix>…` id from the prefix's sequence in the same
 * statement and returns it: one round trip instead of `nextval`, then the insert (issue #20).
 * The id is formatted as formatId does (at least six digits); the sequence's name is the last
 * parameter. `generated`: columns PostgreSQL fills itself.
 */
export function insertWithNewId<T extends PgTable>(
	raw: ReturnType<typeof rawTable<T>>,
	prefix: string,
	generated: readonly string[] = [],
) {
	if (!/^[a-z][a-z0-9]*_$/.test(prefix)) throw new Error(`storage-pg: unusable id prefix ${JSON.stringify(prefix)}`);
	const omit = [...generated, "id"];
	const sequenceParam = raw.toParams({}, omit).length + 1;
	const newId = `(select ${formattedId(prefix, "v")} from nextval($${sequenceParam}::regclass) as v)`;
	return {
		/** `insert … values (<new id>, …) returning "id"`; parameters after the sequence start at `sequenceParam + 1`. */
		sql: raw
			.insertSql(omit)
			.replace(`insert into "${raw.name}" (`, `insert into "${raw.name}" ("id", `)
			.replace("values (", `values (${newId}, `)
			.concat(' returning "id"'),
		sequenceParam,
		params: (record: object, sequence: string) => [...raw.toParams({ ...record, id: "" }, omit), sequence],
	};
}

/** SQL for `<prefix>` and a sequence's value `v` (a column or expression), formatted as formatId does. */
export function formattedId(prefix: string, v: string): string {
	return `'${prefix}' || case when ${v} < 1000000 then lpad(${v}::text, 6, '0') else ${v}::text end`;
}
