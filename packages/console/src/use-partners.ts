/** The tenant's partners for pickers (first 100): the send form and the message filters. */
import { useEffect, useState } from "preact/hooks";
import { api } from "./api.ts";

export interface PartnerOption {
	id: string;
	name: string;
	as2_id: string;
}

export function usePartnerOptions(): { rows: PartnerOption[]; loaded: boolean } {
	const [state, setState] = useState<{ rows: PartnerOption[]; loaded: boolean }>({ rows: [], loaded: false });
	useEffect(() => {
		api
			.page<PartnerOption>("/v1/partners", { per_page: 100 })
			.then((page) => setState({ rows: page.data, loaded: true }))
			.catch(() => setState({ rows: [], loaded: true }));
	}, []);
	return state;
}
