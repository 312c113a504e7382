import { ComingSoon } from "../ComingSoon.tsx";

export function EpcisScreen() {
	return <ComingSoon title="EPCIS" what="validate and query EPCIS documents" />;
}
