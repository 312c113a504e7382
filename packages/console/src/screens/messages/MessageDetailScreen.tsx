import { Page } from "../../components/Page.tsx";
import type { RouteParams } from "../../routes.tsx";

export function MessageDetailScreen({ params }: { params: RouteParams }) {
	return <Page title={`Message ${params.id}`} />;
}
