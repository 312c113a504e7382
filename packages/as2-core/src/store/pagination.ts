/** A page request: `page` from 1, `perPage` 1–100 (interface spec, Pagination). */
export interface PageRequest {
	page: number;
	perPage: number;
}

/** One page of items and the total count of all matching items. */
export interface Page<T> {
	items: T[];
	total: number;
}
