import type { Page, PageRequest } from "@as2kit/core/store";
import { sql } from "drizzle-orm";

/** LIMIT and OFFSET of a page request. */
export function window(page: PageRequest): { limit: number; offset: number } {
	return { limit: page.perPage, offset: (page.page - 1) * page.perPage };
}

/** Selected beside each row of a page: the count of all matching rows, from the page's own statement. */
export const totalOver = () => sql<number>`count(*) over ()`.mapWith(Number);

/**
 * A page read with `totalOver()`, so that items and total come from one statement (one
 * snapshot at READ COMMITTED). A page past the end has no row to carry the total: `countAll`
 * counts then.
 */
export async function pageOf<R extends { total: number }, T>(
	rows: R[],
	toItem: (row: R) => T,
	offset: number,
	countAll: () => Promise<number>,
): Promise<Page<T>> {
	if (rows.length > 0) return { items: rows.map(toItem), total: rows[0]!.total };
	return { items: [], total: offset === 0 ? 0 : await countAll() };
}
