/**
 * One message: its facts, the compatibility hint of a failure, actions, the MDN, the timeline,
 * every attempt with its wire captures, and the payload download. While the message is on its
 * way (queued, processing, sent awaiting an MDN) the screen polls every 2 s.
 */
import { useEffect } from "preact/hooks";
import { api } from "../../api.ts";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { Page } from "../../components/Page.tsx";
import { StatusBadge } from "../../components/StatusBadge.tsx";
import { formatBytes, formatDate, formatDuration } from "../../format.ts";
import { Link } from "../../router.tsx";
import type { RouteParams } from "../../routes.tsx";
import type { Attempt, MessageDetail, TimelineEntry } from "../../types.ts";
import { useApi } from "../../use-api.ts";
import { AttemptsList } from "./AttemptsList.tsx";
import { DownloadButton } from "./DownloadButton.tsx";
import { ErrorHintBox } from "./ErrorHintBox.tsx";
import { MessageActions } from "./MessageActions.tsx";
import { Timeline } from "./Timeline.tsx";

const POLL_MS = 2_000;

interface Loaded {
	message: MessageDetail;
	timeline: TimelineEntry[];
	attempts: Attempt[];
}

async function load(id: string): Promise<Loaded> {
	const [message, timeline, attempts] = await Promise.all([
		api.get<{ data: MessageDetail }>(`/v1/messages/${id}`),
		api.get<{ data: TimelineEntry[] }>(`/v1/messages/${id}/timeline`),
		api.get<{ data: Attempt[] }>(`/v1/messages/${id}/attempts`),
	]);
	return { message: message.data, timeline: timeline.data, attempts: attempts.data };
}

const inFlight = (message: MessageDetail) =>
	message.status === "queued" ||
	message.status === "processing" ||
	(message.status === "sent" && message.mdn_status === "pending");

export function MessageDetailScreen({ params }: { params: RouteParams }) {
	const id = params.id ?? "";
	const loaded = useApi(() => load(id), [id]);
	const message = loaded.data?.message;
	const { reload } = loaded;
	// A transient failure (no connection, rate limit, 5xx) is asked again too.
	const failed = loaded.error;
	const transient = failed !== null && (failed.status === 0 || failed.status === 429 || failed.status >= 500);
	const polling = transient || (message ? inFlight(message) : false);
	useEffect(() => {
		if (!polling) return;
		const timer = setInterval(reload, POLL_MS);
		return () => clearInterval(timer);
	}, [polling, reload]);
	const title = message ? message.subject || message.filename || "Message" : "Message";
	return (
		<Page
			title={title}
			lead={
				message ? (
					<>
						<StatusBadge status={message.status} /> {message.direction} · {message.environment} ·{" "}
						<code>{message.message_id}</code>
					</>
				) : undefined
			}
			actions={message ? <MessageActions message={message} onDone={reload} /> : undefined}
		>
			<p>
				<Link to="messages">← All messages</Link>
			</p>
			<ErrorNote error={loaded.error} />
			{message && loaded.data ? (
				<>
					{message.error_code ? (
						<section class="card error-card" aria-label="Error">
							<p>
								<strong>{message.error_code}</strong>: {message.error_message}
							</p>
							{message.error_hint ? <ErrorHintBox hint={message.error_hint} partnerId={message.partner.id} /> : null}
						</section>
					) : null}
					<div class="grid two">
						<section class="card" aria-labelledby="facts">
							<h2 id="facts">Message</h2>
							<dl class="facts">
								<dt>Partner</dt>
								<dd>
									<Link to={`partners/${message.partner.id}`}>{message.partner.name ?? message.partner.as2_id}</Link>
								</dd>
								<dt>Content type</dt>
								<dd>{message.content_type}</dd>
								<dt>Size</dt>
								<dd>{formatBytes(message.bytes)}</dd>
								<dt>Security</dt>
								<dd>
									{[message.signed && "signed", message.encrypted && "encrypted", message.compressed && "compressed"]
										.filter(Boolean)
										.join(", ") || "none"}
								</dd>
								<dt>Created</dt>
								<dd>{formatDate(message.created_at)}</dd>
								<dt>Delivered</dt>
								<dd>{formatDate(message.delivered_at)}</dd>
								<dt>Transmission</dt>
								<dd>{formatDuration(message.transmission_time_ms)}</dd>
								{message.next_attempt_at ? (
									<>
										<dt>Next attempt</dt>
										<dd>{formatDate(message.next_attempt_at)}</dd>
									</>
								) : null}
							</dl>
							<p class="button-row">
								<DownloadButton
									path={`/v1/messages/${message.id}/payload`}
									fileName={message.filename ?? `${message.id}.bin`}
									label="Download payload"
								/>
							</p>
						</section>
						<section class="card" aria-labelledby="mdn">
							<h2 id="mdn">MDN</h2>
							{message.mdn_data ? (
								<dl class="facts">
									<dt>Disposition</dt>
									<dd>{message.mdn_data.disposition}</dd>
									<dt>Received</dt>
									<dd>{formatDate(message.mdn_data.received_at)}</dd>
									<dt>Signature</dt>
									<dd>
										{message.mdn_data.signed ? (message.mdn_data.signature_valid ? "valid" : "not valid") : "unsigned"}
									</dd>
									<dt>MIC</dt>
									<dd>
										{message.mdn_data.mic_matches === null ? "—" : message.mdn_data.mic_matches ? "matches" : "differs"}
									</dd>
									<dt>Reporting UA</dt>
									<dd>{message.mdn_data.reporting_ua ?? "—"}</dd>
								</dl>
							) : (
								<p class="muted">
									{message.mdn_mode === "none" ? "No MDN was requested." : <StatusBadge status={message.mdn_status} />}
								</p>
							)}
						</section>
					</div>
					<section class="card" aria-labelledby="timeline">
						<h2 id="timeline">Timeline</h2>
						<Timeline entries={loaded.data.timeline} />
					</section>
					<section aria-labelledby="attempts">
						<h2 id="attempts">Attempts</h2>
						<AttemptsList attempts={loaded.data.attempts} environment={message.environment} />
					</section>
				</>
			) : null}
		</Page>
	);
}
