/** The signed-in account's id (`GET /v1/account`): master partners live under `/v1/accounts/{account_id}`. */
import { useEffect, useState } from "preact/hooks";
import { type ApiError, api } from "../../api.ts";

export function useAccountId(): { accountId: string | null; error: ApiError | null } {
	const [accountId, setAccountId] = useState<string | null>(null);
	const [error, setError] = useState<ApiError | null>(null);
	useEffect(() => {
		api
			.get<{ data: { id: string } }>("/v1/account")
			.then((answer) => setAccountId(answer.data.id))
			.catch((failure: ApiError) => setError(failure));
	}, []);
	return { accountId, error };
}

export const masterPath = (accountId: string, partnerId?: string) =>
	`/v1/accounts/${encodeURIComponent(accountId)}/partners${partnerId ? `/${encodeURIComponent(partnerId)}` : ""}`;
