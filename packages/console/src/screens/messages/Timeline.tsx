/** The message's events in order (`/timeline`): what happened, when, in which attempt. */
import { StatusBadge } from "../../components/StatusBadge.tsx";
import { formatDate } from "../../format.ts";
import type { TimelineEntry } from "../../types.ts";

export function Timeline({ entries }: { entries: TimelineEntry[] }) {
	if (entries.length === 0) return <p class="muted">No events yet.</p>;
	return (
		<ol class="timeline" aria-label="Timeline">
			{entries.map((entry) => (
				<li key={entry.event_id}>
					<time dateTime={entry.at}>{formatDate(entry.at)}</time>
					<span class="timeline-event">
						{entry.status ? <StatusBadge status={entry.status} /> : <code>{entry.event}</code>}
						{entry.attempt ? <span class="muted-inline"> attempt {entry.attempt}</span> : null}
						{typeof entry.data.error_message === "string" ? (
							<span class="muted-inline"> — {entry.data.error_message}</span>
						) : null}
					</span>
				</li>
			))}
		</ol>
	);
}
