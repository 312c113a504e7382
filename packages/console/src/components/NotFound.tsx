import { Link } from "../router.tsx";
import { EmptyState } from "./EmptyState.tsx";
import { Page } from "./Page.tsx";

export function NotFound() {
	return (
		<Page title="Page not found">
			<EmptyState title="There is nothing at this address">
				<Link to="">Go to the overview</Link>
			</EmptyState>
		</Page>
	);
}
