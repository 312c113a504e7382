/** A page request: `page` from 1, `perPage` 1–100 (interface spec, Pagination). */
export interface PageRequest {
	page: number;
	perPage: number;
	/**
	 * Counting costs time in proportion to what is counted. With a limit, an adapter may stop
	 * counting at `(page - 1) * perPage + countLimit` matching items and answer that as a lower
	 * bound (`Page.totalExact: false`); it may also always count exactly.
	 */
	countLimit?: number;
}

/** One page of items and the total count of all matching items. */
export interface Page<T> {
	items: T[];
	total: number;
	/** false when counting stopped at the request's `countLimit`: `total` is then a lower bound. Absent: exact. */
	totalExact?: boolean;
}
