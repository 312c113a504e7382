/** One partner with its configuration groups (HTTP auth): the detail and `/configuration` together. */
import { useCallback, useEffect, useState } from "preact/hooks";
import { type ApiError, api } from "../../api.ts";
import type { PartnerConfiguration, PartnerDetail } from "./partner-types.ts";

export function usePartner(id: string) {
	const [partner, setPartner] = useState<PartnerDetail | null>(null);
	const [configuration, setConfiguration] = useState<PartnerConfiguration | null>(null);
	const [error, setError] = useState<ApiError | null>(null);
	const [version, setVersion] = useState(0);
	useEffect(() => {
		let current = true;
		const path = `/v1/partners/${encodeURIComponent(id)}`;
		Promise.all([
			api.get<{ data: PartnerDetail }>(path),
			api.get<{ data: PartnerConfiguration }>(`${path}/configuration`),
		])
			.then(([detail, config]) => {
				if (!current) return;
				setPartner(detail.data);
				setConfiguration(config.data);
				setError(null);
			})
			.catch((failure: ApiError) => current && setError(failure));
		return () => {
			current = false;
		};
	}, [id, version]);
	const reload = useCallback(() => setVersion((n) => n + 1), []);
	return { partner, configuration, error, reload };
}
