import pg from "pg";

/** A row as PostgreSQL sends it in the text format: each column's text, or null. */
export type TextRow = readonly (string | null)[];

/**
 * A prepared statement run without asking PostgreSQL to describe its result. node-postgres
 * sends Describe with every execution, and for each answer decodes the RowDescription (a name
 * and six numbers per column), builds a row template and a type parser per column, and copies
 * the template for every row: for the 41 columns of `messages` about as much client CPU again
 * as the rest of the query (performance-storage.md, "PostgreSQL (stop 29)"). Describe is
 * optional in the extended query protocol (Parse, Bind, Execute, Sync): without it PostgreSQL
 * sends the rows alone, which this query hands over as their columns' text, for a caller that
 * wrote the statement's column list and so knows each column's place and type.
 */
class UndescribedQuery extends pg.Query {
	prepare(connection: pg.Connection): void {
		const wire = connection as unknown as Wire;
		const self = this as unknown as QueryInternals;
		if (!self.hasBeenParsed(connection)) {
			wire.parse({ text: self.text, name: self.name });
			wire.submittedNamedStatements[self.name] = self.text;
		}
		try {
			wire.bind({ portal: self.portal, statement: self.name, values: self.values, valueMapper: prepareValue });
		} catch (error) {
			// As node-postgres does when a value cannot be written: close the statement and resynchronise.
			wire.close({ type: "S", name: self.name });
			wire.sync();
			self.handleError(error, connection);
			return;
		}
		wire.execute({ portal: self.portal });
		wire.sync();
	}

	handleDataRow(message: { fields: TextRow }): void {
		(this as unknown as QueryInternals)._result.rows.push(message.fields);
	}
}

/** What node-postgres' Query.prepare uses of its connection (pg/lib/connection.js, 8.x). */
interface Wire {
	submittedNamedStatements: Record<string, string>;
	parse(message: { text: string; name: string }): void;
	bind(message: { portal: string; statement: string; values: unknown[]; valueMapper: unknown }): void;
	execute(message: { portal: string }): void;
	close(message: { type: string; name: string }): void;
	sync(): void;
}

/** What node-postgres' Query.prepare uses of its query (pg/lib/query.js, 8.x). */
interface QueryInternals {
	name: string;
	text: string;
	values: unknown[];
	portal: string;
	_result: { rows: TextRow[] };
	hasBeenParsed(connection: pg.Connection): boolean;
	handleError(error: unknown, connection: pg.Connection): void;
}

// node-postgres' own conversion of parameters (Dates, Buffers, arrays, objects as JSON).
const { prepareValue } = (pg as unknown as { utils: { prepareValue: (value: unknown) => unknown } }).utils;

/**
 * Runs the prepared statement `name` (`text`) on `on` without Describe, and decodes each row
 * with `decode`. On a pool, a pooled connection runs it; on a client, it queues behind (and,
 * pipelining, is written with) the queries before it.
 */
export function undescribedQuery<R>(
	on: pg.Pool | pg.ClientBase,
	name: string,
	text: string,
	values: readonly unknown[],
	decode: (row: TextRow) => R,
): Promise<R[]> {
	return submitted(on, named(new UndescribedQuery(text, values as unknown[]), name)).then((result) =>
		(result.rows as unknown as TextRow[]).map(decode),
	);
}

/**
 * Runs the prepared statement `name` (`text`) on `on` as node-postgres does, described, rows as
 * objects; made here as the undescribed ones are, so neither goes through a config object.
 */
export function describedQuery<R>(
	on: pg.Pool | pg.ClientBase,
	name: string,
	text: string,
	values: readonly unknown[],
): Promise<R[]> {
	return submitted(on, named(new pg.Query(text, values as unknown[]), name)).then((result) => result.rows as R[]);
}

/**
 * The query made from its text, then named: node-postgres copies a query's config object with
 * its property descriptors (`cloneQueryConfig`, 1.7 µs a query against 0.07 µs from the text,
 * median of 7 rounds of 200,000; the heaviest function of the client's own in the sender's
 * profile), and the name is all the config would add.
 */
function named<Q extends pg.Query>(query: Q, name: string): Q {
	(query as unknown as { name: string }).name = name;
	return query;
}

/** The first column's text of a row (a statement that returns one text column: a new id). */
export const firstText = (row: TextRow): string => row[0] as string;

/**
 * A row whose columns nobody reads: a statement that returns `"id"` only so that its caller
 * can tell whether it matched a row, or one that returns no rows at all.
 */
export const unread = (): null => null;

/** Submits `query` on `on` and resolves to its result. */
function submitted(on: pg.Pool | pg.ClientBase, query: pg.Query): Promise<pg.QueryResult> {
	return new Promise((resolve, reject) => {
		const done = (error: Error | null, result?: pg.QueryResult) => (error ? reject(error) : resolve(result!));
		(on.query as (query: unknown, values: undefined, callback: typeof done) => void).call(on, query, undefined, done);
	});
}
