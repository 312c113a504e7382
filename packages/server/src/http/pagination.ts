import type { Page } from "@as2kit/core/store";
import * as v from "valibot";

const integerParam = (min: number, max: number) =>
	v.pipe(
		v.string(),
		v.regex(/^-?\d+$/, "must be an integer"),
		v.transform(Number),
		v.integer(),
		v.minValue(min),
		v.maxValue(max),
	);

/** `page` (from 1) and `per_page` (1–100, default 20): every list (interface spec, Pagination). */
export const pageQueryEntries = {
	page: v.optional(integerParam(1, 1_000_000_000), "1"),
	per_page: v.optional(integerParam(1, 100), "20"),
};

export const paginationSchema = v.object({
	current_page: v.number(),
	last_page: v.number(),
	per_page: v.number(),
	total: v.number(),
	from: v.pipe(v.number(), v.description("number of the first item on this page; 0 when the page is empty")),
	to: v.pipe(v.number(), v.description("number of the last item on this page; 0 when the page is empty")),
});

export const listEnvelope = (item: v.GenericSchema) => v.object({ data: v.array(item), pagination: paginationSchema });

/** `{ data, pagination }` for a page of records. */
export function listBody<R, T>(page: Page<R>, request: { page: number; per_page: number }, view: (record: R) => T) {
	const { total, items } = page;
	const from = items.length === 0 ? 0 : (request.page - 1) * request.per_page + 1;
	return {
		data: items.map(view),
		pagination: {
			current_page: request.page,
			last_page: Math.max(1, Math.ceil(total / request.per_page)),
			per_page: request.per_page,
			total,
			from,
			to: items.length === 0 ? 0 : from + items.length - 1,
		},
	};
}

export const toPageRequest = (query: { page: number; per_page: number }) => ({
	page: query.page,
	perPage: query.per_page,
});
