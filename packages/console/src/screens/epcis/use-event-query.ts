/**
 * One page of `POST /v1/epcis/query`: the parameters go in the body, the page in the query
 * string; new parameters start again at page 1 (as use-paged-list.ts does for GET lists).
 *
 * Documents are indexed by a job shortly after their message is stored, so a screen opened
 * before that would show "No EPCIS events yet" for good: while the tenant has no events at all
 * (no parameters, none found) or the server could not answer for now, the query is asked again
 * every few seconds. Otherwise the page stays as it is until `run()` asks again, as "Run query"
 * does even with unchanged parameters.
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import { type ApiError, api, type Page } from "../../api.ts";
import type { EpcisEvent } from "./epcis.ts";

const PER_PAGE = 20;
/** Like the deliveries log's refresh: a few requests a minute against the plan's 100. */
const FOLLOW_INDEX_MS = 3_000;

const transient = (error: ApiError) => error.status === 0 || error.status === 429 || error.status >= 500;

export function useEventQuery(parameters: Record<string, string>) {
	const key = JSON.stringify(parameters);
	const [paging, setPaging] = useState({ key, page: 1 });
	const page = paging.key === key ? paging.page : 1;
	const setPage = useCallback((next: number) => setPaging({ key, page: next }), [key]);
	const [result, setResult] = useState<Page<EpcisEvent> | null>(null);
	const [error, setError] = useState<ApiError | null>(null);
	const [asked, setAsked] = useState(0);
	const run = useCallback(() => setAsked((n) => n + 1), []);
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
	}, [key, page, asked]);
	const noEventsYet = key === "{}" && result?.pagination.total === 0;
	const following = noEventsYet || (error !== null && transient(error));
	useEffect(() => {
		if (!following) return;
		const timer = setTimeout(run, FOLLOW_INDEX_MS);
		return () => clearTimeout(timer);
	}, [following, run, result, error]);
	return { rows: result?.data ?? [], pagination: result?.pagination ?? null, error, setPage, run };
}
