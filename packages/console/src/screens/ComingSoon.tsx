/** The placeholder of a screen not built yet: its h1 and what to use meanwhile. */
import { EmptyState } from "../components/EmptyState.tsx";
import { Page } from "../components/Page.tsx";

export function ComingSoon({ title, what }: { title: string; what: string }) {
	return (
		<Page title={title}>
			<EmptyState title={`${title} in the console is coming soon`}>
				<p>
					Meanwhile, {what} through the REST API: see the <a href="/docs">API reference</a>.
				</p>
			</EmptyState>
		</Page>
	);
}
