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
import { SecretBox } from "../../components/SecretBox.tsx";
import { StatusBadge } from "../../components/StatusBadge.tsx";
import { formatDate, formatDuration } from "../../format.ts";
import { Link, navigate } from "../../router.tsx";
import type { RouteParams } from "../../routes.tsx";
import { DeliveriesLog } from "./DeliveriesLog.tsx";
import { useWebhookStats } from "./use-webhook-stats.ts";
import { WebhookForm } from "./WebhookForm.tsx";
import { endpointStatus, type WebhookEndpoint, type WebhookTestResult } from "./webhook.ts";

/** A signing secret made in the browser (Web Crypto), in the `whsec_` form the server generates. */
function generateSecret(): string {
	const bytes = crypto.getRandomValues(new Uint8Array(32));
	return `whsec_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

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
	const [editing, setEditing] = useState(false);
	const [rotating, setRotating] = useState(false);
	const [newSecret, setNewSecret] = useState<string | null>(null);
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
	const rotateSecret = () =>
		act(async () => {
			const secret = generateSecret();
			await api.patch(path, { secret });
			setNewSecret(secret);
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
					<button type="button" class="button" disabled={busy || editing} onClick={() => setEditing(true)}>
						Edit
					</button>
					<button type="button" class="button" disabled={busy} onClick={() => setRotating(true)}>
						Rotate secret
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
			{newSecret ? <SecretBox label="New signing secret" secret={newSecret} /> : null}
			{editing ? (
				<WebhookForm<WebhookEndpoint>
					endpoint={endpoint}
					onDone={(updated) => {
						setEndpoint(updated);
						setEditing(false);
					}}
					onCancel={() => setEditing(false)}
				/>
			) : null}
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
				open={rotating}
				title="Rotate the signing secret?"
				confirmLabel="Rotate secret"
				busy={busy}
				onConfirm={() => {
					setRotating(false);
					rotateSecret();
				}}
				onCancel={() => setRotating(false)}
			>
				<p>
					Every later delivery, retries included, is signed with a new secret, shown once. Update your receiver with it
					right away: until then it rejects the deliveries.
				</p>
			</ConfirmDialog>
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
