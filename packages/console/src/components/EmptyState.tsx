/** What an empty list or screen says: what this is and what to do next. */
import type { ComponentChildren } from "preact";

export function EmptyState(props: { title: string; children?: ComponentChildren }) {
	return (
		<div class="empty-state">
			<p class="empty-title">{props.title}</p>
			{props.children ? <div class="empty-next">{props.children}</div> : null}
		</div>
	);
}
