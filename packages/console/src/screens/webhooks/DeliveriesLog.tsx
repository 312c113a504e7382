/**
 * An endpoint's deliveries log (`GET /v1/webhook-endpoints/{id}/deliveries`), newest first,
 * filterable by status like the API; each delivery opens to its attempts with the receiver's
 * status, time, error and response body, and can be sent again (redeliver). While a delivery
 * is pending the log refreshes itself, so a redelivery's outcome appears without a reload.
 */
import { useEffect, useState } from "preact/hooks";
import { type ApiError, api } from "../../api.ts";
import { DataTable } from "../../components/DataTable.tsx";
import { EmptyState } from "../../components/EmptyState.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { FilterBar } from "../../components/FilterBar.tsx";
import { SelectField } from "../../components/SelectField.tsx";
import { StatusBadge } from "../../components/StatusBadge.tsx";
import { formatDate, formatDuration } from "../../format.ts";
import { usePagedList } from "../../use-paged-list.ts";
import type { WebhookAttempt, WebhookDelivery } from "./webhook.ts";

const PENDING_REFRESH_MS = 2000;

function AttemptLog({ delivery }: { delivery: WebhookDelivery }) {
	if (delivery.attempt_log.length === 0) return <span>{delivery.attempts}</span>;
	return (
		<details class="attempts">
			<summary>
				{delivery.attempts} {delivery.attempts === 1 ? "attempt" : "attempts"}
			</summary>
			<ol class="attempt-list" aria-label={`Attempts of ${delivery.id}`}>
				{delivery.attempt_log.map((attempt) => (
					<AttemptItem key={attempt.attempt} attempt={attempt} />
				))}
			</ol>
		</details>
	);
}

function AttemptItem({ attempt }: { attempt: WebhookAttempt }) {
	return (
		<li class="stack">
			<p>
				Attempt {attempt.attempt} <StatusBadge status={attempt.status} />{" "}
				{attempt.response_status !== null ? `HTTP ${attempt.response_status}` : "no response"}
				{attempt.response_time_ms !== null ? ` in ${formatDuration(attempt.response_time_ms)}` : ""} ·{" "}
				{formatDate(attempt.attempted_at)}
			</p>
			{attempt.error && attempt.error !== `HTTP ${attempt.response_status}` ? (
				<p class="field-error">{attempt.error}</p>
			) : null}
			{attempt.response_body ? (
				<figure class="stack">
					<figcaption class="field-hint">Response body</figcaption>
					<pre class="pre-block">{attempt.response_body}</pre>
				</figure>
			) : null}
		</li>
	);
}

export function DeliveriesLog({ endpointId, version }: { endpointId: string; version: number }) {
	const [filters, setFilters] = useState<Record<string, string>>({});
	const list = usePagedList<WebhookDelivery>(
		`/v1/webhook-endpoints/${encodeURIComponent(endpointId)}/deliveries`,
		filters,
	);
	const [actionError, setActionError] = useState<ApiError | null>(null);
	const [busyId, setBusyId] = useState<string | null>(null);
	const { reload } = list;
	// A test delivery was made (version > 0): it is the newest row.
	useEffect(() => {
		if (version > 0) reload();
	}, [version, reload]);
	const pending = list.rows.some((d) => d.status === "pending");
	useEffect(() => {
		if (!pending || list.loading) return;
		const timer = setTimeout(reload, PENDING_REFRESH_MS);
		return () => clearTimeout(timer);
	}, [pending, list.loading, reload]);
	const redeliver = async (delivery: WebhookDelivery) => {
		setBusyId(delivery.id);
		setActionError(null);
		try {
			await api.post(
				`/v1/webhook-endpoints/${encodeURIComponent(endpointId)}/deliveries/${encodeURIComponent(delivery.id)}/retry`,
			);
			reload();
		} catch (failure) {
			setActionError(failure as ApiError);
		} finally {
			setBusyId(null);
		}
	};
	return (
		<section class="stack" aria-labelledby="deliveries-heading">
			<div class="page-head">
				<h2 id="deliveries-heading">Deliveries</h2>
				<button type="button" class="button ghost" onClick={reload}>
					Refresh deliveries
				</button>
			</div>
			<FilterBar label="Filter deliveries" onApply={setFilters}>
				<SelectField
					label="Status"
					name="status"
					value={filters.status ?? ""}
					error={list.error?.field("status")}
					options={[
						["", "Any status"],
						["pending", "Pending"],
						["succeeded", "Succeeded"],
						["failed", "Failed"],
					]}
				/>
			</FilterBar>
			<ErrorNote error={actionError ?? list.error} />
			{list.pagination?.total === 0 ? (
				<EmptyState title={filters.status ? `No ${filters.status} deliveries` : "Nothing delivered yet"}>
					<p>Send a test event to check the endpoint answers; real events appear here as they happen.</p>
				</EmptyState>
			) : (
				<DataTable<WebhookDelivery>
					caption="Deliveries"
					rows={list.rows}
					rowKey={(delivery) => delivery.id}
					pagination={list.pagination}
					onPage={list.setPage}
					columns={[
						{ header: "Event", render: (d) => <code>{d.event}</code> },
						{ header: "Status", render: (d) => <StatusBadge status={d.status} /> },
						{ header: "Attempts", render: (d) => <AttemptLog delivery={d} /> },
						{
							header: "Last response",
							render: (d) =>
								d.last_response_status !== null ? `HTTP ${d.last_response_status}` : (d.last_error ?? "—"),
						},
						{
							header: "Created",
							render: (d) => (
								<>
									{formatDate(d.created_at)}
									{d.next_attempt_at ? <p class="field-hint">Next try {formatDate(d.next_attempt_at)}</p> : null}
								</>
							),
						},
						{
							header: "Actions",
							render: (d) => (
								<button
									type="button"
									class="button ghost"
									aria-label={`Redeliver ${d.event} ${d.id}`}
									disabled={busyId === d.id}
									onClick={() => redeliver(d)}
								>
									Redeliver
								</button>
							),
						},
					]}
				/>
			)}
		</section>
	);
}
