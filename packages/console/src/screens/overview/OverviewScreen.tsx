import { useAuth } from "../../auth-state.tsx";
import { Page } from "../../components/Page.tsx";

export function OverviewScreen() {
	const auth = useAuth();
	return <Page title="Overview" lead={auth.tenant ? `Tenant ${auth.tenant.name}` : undefined} />;
}
