/** One GET whose answer a screen shows: `data`, `error`, `reload()`; null while loading. */
import { useCallback, useEffect, useState } from "preact/hooks";
import type { ApiError } from "./api.ts";

export function useApi<T>(load: () => Promise<T>, deps: unknown[] = []) {
	const [data, setData] = useState<T | null>(null);
	const [error, setError] = useState<ApiError | null>(null);
	const [version, setVersion] = useState(0);
	useEffect(() => {
		let current = true;
		load()
			.then((answer) => {
				if (current) {
					setData(answer);
					setError(null);
				}
			})
			.catch((failure: ApiError) => current && setError(failure));
		return () => {
			current = false;
		};
	}, [...deps, version]);
	const reload = useCallback(() => setVersion((n) => n + 1), []);
	return { data, error, reload, setData };
}
