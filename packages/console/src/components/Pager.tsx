/** Previous / next over the API's `pagination` object, with "1–20 of 345". */
import type { Pagination } from "../api.ts";

export function Pager({ pagination, onPage }: { pagination: Pagination; onPage: (page: number) => void }) {
	const { current_page: page, last_page: last, from, to, total } = pagination;
	return (
		<nav class="pager" aria-label="Pages">
			<span class="pager-range">{total === 0 ? "No results" : `${from}–${to} of ${total.toLocaleString()}`}</span>
			<button type="button" class="button ghost" disabled={page <= 1} onClick={() => onPage(page - 1)}>
				Previous page
			</button>
			<span class="pager-page">
				Page {page} of {last}
			</span>
			<button type="button" class="button ghost" disabled={page >= last} onClick={() => onPage(page + 1)}>
				Next page
			</button>
		</nav>
	);
}
