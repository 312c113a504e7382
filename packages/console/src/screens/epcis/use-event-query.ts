/**
 * One page of `POST /v1/epcis/query`: the parameters go in the body, the page in the query
 * string; new parameters start again at page 1 (as use-paged-list.ts does for GET lists).
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import { type ApiError, api, type Page } from "../../api.ts";
import type { EpcisEvent } from "./epcis.ts";

const PER_PAGE = 20;

export function useEventQuery(parameters: Record<string, string>) {
	const key = JSON.stringify(parameters);
	const [paging, setPaging] = useState({ key, page: 1 });
	const page = paging.key === key ? paging.page : 1;
	const setPage = useCallback((next: number) => setPaging({ key, page: next }), [key]);
	const [result, setResult] = useState<Page<EpcisEvent> | null>(null);
	const [error, setError] = useState<ApiError | null>(null);
	useEffect(() => {
		let current = true;
		api
			.post<Page<EpcisEvent>>(`/v1/epcis/query?page=${page}&per_page=${PER_PAGE}`, {
				query_type: "SimpleEventQuery",
				parameters: JSON.parse(key),
			})
			.then((answer) => {
				if (!current) return;
				setResult(answer);
				setError(null);
			})
			.catch((failure: ApiError) => {
				if (!current) return;
				setResult(null);
				setError(failure);
			});
		return () => {
			current = false;
		};
	}, [key, page]);
	return { rows: result?.data ?? [], pagination: result?.pagination ?? null, error, setPage };
}
