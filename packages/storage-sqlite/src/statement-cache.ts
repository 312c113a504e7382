import type Database from "better-sqlite3";

/**
 * drizzle prepares a new better-sqlite3 statement for every query; preparing costs more than
 * running a small query. Statements are reusable, so identical SQL gets the same statement
 * from a bounded cache. A reused reader statement is reset to object rows first, because
 * drizzle switches some to raw (array) rows for the call it makes.
 */
export function cacheStatements(client: Database.Database, capacity = 1000): void {
	const prepare = client.prepare.bind(client);
	const cache = new Map<string, Database.Statement>();
	client.prepare = ((source: string) => {
		const cached = cache.get(source);
		if (cached) {
			if (cached.reader) cached.raw(false);
			return cached;
		}
		const statement = prepare(source);
		if (cache.size >= capacity) cache.delete(cache.keys().next().value!);
		cache.set(source, statement);
		return statement;
	}) as typeof client.prepare;
}
