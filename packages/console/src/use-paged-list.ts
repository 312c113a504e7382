/**
 * One page of a list endpoint, reloaded when the filters or the page change. Filters are the
 * API's own query parameters (empty values are left out); the page lives in state here.
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import { type ApiError, api, type Page, type Query } from "./api.ts";

export function usePagedList<T>(path: string, filters: Query = {}, perPage = 20) {
	const filterKey = JSON.stringify(filters);
	// The page belongs to the filters it was chosen under: new filters start at page 1.
	const [paging, setPaging] = useState({ filterKey, page: 1 });
	const page = paging.filterKey === filterKey ? paging.page : 1;
	const setPage = useCallback((next: number) => setPaging({ filterKey, page: next }), [filterKey]);
	const [result, setResult] = useState<Page<T> | null>(null);
	const [error, setError] = useState<ApiError | null>(null);
	const [loading, setLoading] = useState(true);
	const [version, setVersion] = useState(0);
	useEffect(() => {
		let current = true;
		setLoading(true);
		api
			.page<T>(path, { ...filters, page, per_page: perPage })
			.then((answer) => {
				if (current) {
					setResult(answer);
					setError(null);
				}
			})
			.catch((failure: ApiError) => current && setError(failure))
			.finally(() => current && setLoading(false));
		return () => {
			current = false;
		};
	}, [path, filterKey, page, perPage, version]);
	const reload = useCallback(() => setVersion((n) => n + 1), []);
	return {
		rows: result?.data ?? [],
		pagination: result?.pagination ?? null,
		error,
		loading,
		page,
		setPage,
		reload,
	};
}
