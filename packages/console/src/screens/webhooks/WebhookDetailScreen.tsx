/**
 * One webhook endpoint: what it receives, its stats, a test delivery made now (with the
 * receiver's answer), activate/deactivate, delete, and its deliveries log.
 */
import { useEffect, useState } from "preact/hooks";
import { type ApiError, api } from "../../api.ts";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { NotFound } from "../../components/NotFound.tsx";
import { Page } from "../../components/Page.tsx";
import { StatusBadge } from "../../components/StatusBadge.tsx";
import { formatDate, formatDuration } from "../../format.ts";
import { Link, navigate } from "../../router.tsx";
import type { RouteParams } from "../../routes.tsx";
import { DeliveriesLog } from "./DeliveriesLog.tsx";
import { useWebhookStats } from "./use-webhook-stats.ts";
import { endpointStatus, type WebhookEndpoint, type WebhookTestResult } from "./webhook.ts";

function TestOutcome({ result }: { result: WebhookTestResult }) {
	const answered = result.response_status !== null ? `HTTP ${result.response_status}` : "no response";
	return (
		<div class={result.status === "succeeded" ? "card" : "form-error"} role="status">
			<StatusBadge status={result.status} /> Test event {result.status === "succeeded" ? "delivered" : "not delivered"}:{" "}
			{answered} in {formatDuration(result.response_time_ms)}
			{result.error ? ` (${result.error})` : ""}.
		</div>
	);
}

export function WebhookDetailScreen({ params }: { params: RouteParams }) {
	const path = `/v1/webhook-endpoints/${encodeURIComponent(params.id ?? "")}`;
	const [endpoint, setEndpoint] = useState<WebhookEndpoint | null>(null);
	const [loadError, setLoadError] = useState<ApiError | null>(null);
	const [actionError, setActionError] = useState<ApiError | null>(null);
	const [busy, setBusy] = useState(false);
	const [test, setTest] = useState<WebhookTestResult | null>(null);
	const [version, setVersion] = useState(0);
	const [deleting, setDeleting] = useState(false);
	const stats = useWebhookStats(version).get(params.id ?? "");
	useEffect(() => {
		api
			.get<{ data: WebhookEndpoint }>(path)
			.then((answer) => setEndpoint(answer.data))
			.catch((failure: ApiError) => setLoadError(failure));
	}, [path]);
	const act = async (action: () => Promise<void>) => {
		setBusy(true);
		setActionError(null);
		try {
			await action();
		} catch (failure) {
			setActionError(failure as ApiError);
		} finally {
			setBusy(false);
		}
	};
	const sendTest = () =>
		act(async () => {
			const answer = await api.post<{ data: WebhookTestResult }>(`${path}/test`);
			setTest(answer.data);
			setVersion((n) => n + 1);
		});
	const setActive = (active: boolean) =>
		act(async () => {
			const answer = await api.patch<{ data: WebhookEndpoint }>(path, { active });
			setEndpoint(answer.data);
		});
	const remove = () =>
		act(async () => {
			await api.delete(path);
			navigate("webhooks");
		});
	if (loadError?.status === 404) return <NotFound />;
	if (!endpoint) {
		return (
			<Page title="Webhook endpoint">
				<ErrorNote error={loadError} />
			</Page>
		);
	}
	return (
		<Page
			title="Webhook endpoint"
			lead={
				<>
					<code>{endpoint.url}</code> · <Link to="webhooks">All webhook endpoints</Link>
				</>
			}
			actions={
				<>
					<button type="button" class="button primary" disabled={busy} onClick={sendTest}>
						Send test event
					</button>
					<button type="button" class="button" disabled={busy} onClick={() => setActive(!endpoint.active)}>
						{endpoint.active ? "Deactivate" : "Activate"}
					</button>
					<button type="button" class="button danger" disabled={busy} onClick={() => setDeleting(true)}>
						Delete
					</button>
				</>
			}
		>
			{test ? <TestOutcome result={test} /> : null}
			<ErrorNote error={actionError} />
			{endpoint.disabled_reason ? (
				<div class="hint-box" role="note">
					<p>
						<strong>Deactivated by as2kit:</strong> {endpoint.disabled_reason}
					</p>
					<p>Fix the receiver, then activate the endpoint: its pending deliveries resume.</p>
				</div>
			) : null}
			<div class="grid wide-cards">
				<section class="card" aria-labelledby="endpoint-heading">
					<h2 id="endpoint-heading">Endpoint</h2>
					<dl class="facts">
						<dt>Status</dt>
						<dd>
							<StatusBadge status={endpointStatus(endpoint)} />
						</dd>
						<dt>Events</dt>
						<dd>{endpoint.events.join(", ")}</dd>
						<dt>Failing since</dt>
						<dd>{formatDate(endpoint.failing_since)}</dd>
						<dt>Created</dt>
						<dd>{formatDate(endpoint.created_at)}</dd>
					</dl>
				</section>
				<section class="card" aria-labelledby="stats-heading">
					<h2 id="stats-heading">Delivery stats</h2>
					<dl class="facts">
						<dt>Attempts</dt>
						<dd>{stats?.total_deliveries ?? 0}</dd>
						<dt>Succeeded</dt>
						<dd>{stats?.successful_deliveries ?? 0}</dd>
						<dt>Failed</dt>
						<dd>{stats?.failed_deliveries ?? 0}</dd>
						<dt>Success rate</dt>
						<dd>{stats && stats.total_deliveries > 0 ? `${stats.success_rate}%` : "—"}</dd>
						<dt>Average response</dt>
						<dd>{stats && stats.total_deliveries > 0 ? formatDuration(stats.avg_response_time_ms) : "—"}</dd>
						<dt>Last delivery</dt>
						<dd>{formatDate(stats?.last_delivery_at)}</dd>
					</dl>
				</section>
			</div>
			<DeliveriesLog endpointId={endpoint.id} version={version} />
			<ConfirmDialog
				open={deleting}
				title="Delete this webhook endpoint?"
				confirmLabel="Delete endpoint"
				danger
				busy={busy}
				onConfirm={() => {
					setDeleting(false);
					remove();
				}}
				onCancel={() => setDeleting(false)}
			>
				<p>
					Nothing more is sent to <strong>{endpoint.url}</strong>, and its delivery log is deleted with it.
				</p>
			</ConfirmDialog>
		</Page>
	);
}
