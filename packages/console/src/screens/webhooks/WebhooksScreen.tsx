/**
 * The tenant's webhook endpoints (`GET /v1/webhook-endpoints`) with their delivery stats;
 * adding one shows its signing secret once. Each endpoint links to its deliveries log.
 */
import { DataTable } from "../../components/DataTable.tsx";
import { EmptyState } from "../../components/EmptyState.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { Page } from "../../components/Page.tsx";
import { SecretBox } from "../../components/SecretBox.tsx";
import { StatusBadge } from "../../components/StatusBadge.tsx";
import { useCreateFlow } from "../../components/use-create-flow.ts";
import { formatDate, formatDuration } from "../../format.ts";
import { Link } from "../../router.tsx";
import { usePagedList } from "../../use-paged-list.ts";
import { useWebhookStats } from "./use-webhook-stats.ts";
import { WebhookForm } from "./WebhookForm.tsx";
import { type CreatedWebhookEndpoint, endpointStatus, type WebhookEndpoint } from "./webhook.ts";

export function WebhooksScreen() {
	const list = usePagedList<WebhookEndpoint>("/v1/webhook-endpoints");
	const stats = useWebhookStats(list.rows);
	const flow = useCreateFlow<CreatedWebhookEndpoint>(list.reload);
	const created = flow.created;
	return (
		<Page
			title="Webhooks"
			lead="as2kit posts an event to your endpoints when a message is sent, delivered, fails or arrives."
			actions={
				flow.creating ? null : (
					<button type="button" class="button primary" onClick={flow.open}>
						Add an endpoint
					</button>
				)
			}
		>
			{created ? (
				<div class="stack">
					<SecretBox label={`Signing secret of ${created.url}`} secret={created.secret} />
					<p>
						Verify each delivery: HMAC-SHA256 of the raw body with this secret, hex, equals the <code>x-signature</code>{" "}
						header. <Link to={`webhooks/${created.id}`}>Send a test event to {created.url}</Link>.
					</p>
				</div>
			) : null}
			{flow.creating ? <WebhookForm<CreatedWebhookEndpoint> onDone={flow.done} onCancel={flow.cancel} /> : null}
			<ErrorNote error={list.error} />
			{list.pagination?.total === 0 ? (
				<EmptyState title="No webhook endpoints yet">
					<p>Add an endpoint to hear about deliveries and failures as they happen, instead of polling the API.</p>
				</EmptyState>
			) : (
				<DataTable<WebhookEndpoint>
					caption="Webhook endpoints"
					rows={list.rows}
					rowKey={(endpoint) => endpoint.id}
					pagination={list.pagination}
					onPage={list.setPage}
					columns={[
						{ header: "Endpoint", render: (e) => <Link to={`webhooks/${e.id}`}>{e.url}</Link> },
						{ header: "Events", render: (e) => e.events.join(", ") },
						{ header: "Status", render: (e) => <StatusBadge status={endpointStatus(e)} /> },
						{ header: "Deliveries", numeric: true, render: (e) => stats.get(e.id)?.total_deliveries ?? 0 },
						{
							header: "Success rate",
							numeric: true,
							render: (e) => {
								const s = stats.get(e.id);
								return s && s.total_deliveries > 0 ? `${s.success_rate}%` : "—";
							},
						},
						{
							header: "Avg response",
							numeric: true,
							render: (e) => {
								const s = stats.get(e.id);
								return s && s.total_deliveries > 0 ? formatDuration(s.avg_response_time_ms) : "—";
							},
						},
						{ header: "Last delivery", render: (e) => formatDate(stats.get(e.id)?.last_delivery_at) },
					]}
				/>
			)}
		</Page>
	);
}
