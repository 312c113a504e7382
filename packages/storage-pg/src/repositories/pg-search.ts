import { type Column, ilike, or, type SQL } from "drizzle-orm";

/**
 * Case-insensitive substring match on any of `columns`: ILIKE '%term%', with the wildcards
 * `%`, `_` and the escape `\` of the term matched literally (backslash is ILIKE's default escape).
 */
export function containsIgnoringCase(term: string, ...columns: (Column | SQL)[]): SQL {
	const pattern = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
	return or(...columns.map((column) => ilike(column, pattern)))!;
}
