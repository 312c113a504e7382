import type { PageRequest } from "@as2kit/core/store";

/** LIMIT and OFFSET of a page request. */
export function window(page: PageRequest): { limit: number; offset: number } {
	return { limit: page.perPage, offset: (page.page - 1) * page.perPage };
}
