/** The tenant's partners for pickers (first 100, by name): the send form and the message filters. */
import { useEffect, useState } from "preact/hooks";
import { api } from "./api.ts";

export interface PartnerOption {
	id: string;
	name: string;
	as2_id: string;
	is_active?: boolean;
	active?: boolean;
}

export function usePartnerOptions(): PartnerOption[] {
	const [partners, setPartners] = useState<PartnerOption[]>([]);
	useEffect(() => {
		api
			.page<PartnerOption>("/v1/partners", { per_page: 100 })
			.then((page) => setPartners(page.data))
			.catch(() => setPartners([]));
	}, []);
	return partners;
}
