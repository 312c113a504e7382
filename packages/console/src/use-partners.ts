/** The tenant's partners for pickers (first 100): the send form, the message and certificate filters. */
import { useEffect, useState } from "preact/hooks";
import { api } from "./api.ts";

export interface PartnerOption {
	id: string;
	name: string;
	as2_id: string;
}

/** The partners and whether they are loaded yet (an empty list is then a real "none"). */
export function usePartnerPicker(): { rows: PartnerOption[]; loaded: boolean } {
	const [state, setState] = useState<{ rows: PartnerOption[]; loaded: boolean }>({ rows: [], loaded: false });
	useEffect(() => {
		api
			.page<PartnerOption>("/v1/partners", { per_page: 100 })
			.then((page) => setState({ rows: page.data, loaded: true }))
			.catch(() => setState({ rows: [], loaded: true }));
	}, []);
	return state;
}

/** The partners alone: empty while they load. */
export function usePartnerOptions(): PartnerOption[] {
	return usePartnerPicker().rows;
}
