import { ComingSoon } from "../ComingSoon.tsx";

export function PartnersScreen() {
	return <ComingSoon title="Partners" what="manage trading partners and their certificates" />;
}
