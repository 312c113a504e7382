/** The tenant at a glance: today's messages by status and what needs attention. */
import { api } from "../../api.ts";
import { useAuth } from "../../auth-state.tsx";
import { EmptyState } from "../../components/EmptyState.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { Page } from "../../components/Page.tsx";
import { StatusBadge } from "../../components/StatusBadge.tsx";
import { formatDate } from "../../format.ts";
import { Link } from "../../router.tsx";
import type { Message } from "../../types.ts";
import { useApi } from "../../use-api.ts";
import { ListCard } from "./ListCard.tsx";
import { loadOverview, MESSAGE_STATUSES, startOfToday } from "./overview-data.ts";
import { PlanUsage } from "./PlanUsage.tsx";

export function OverviewScreen() {
	const auth = useAuth();
	const overview = useApi(() => loadOverview());
	const partners = useApi(() => api.page("/v1/partners", { per_page: 1 }).then((page) => page.pagination.total));
	const data = overview.data;
	return (
		<Page
			title="Overview"
			lead={auth.tenant ? `Tenant ${auth.tenant.name}` : undefined}
			actions={
				<Link class="button primary" to="messages/new">
					Send a message
				</Link>
			}
		>
			<ErrorNote error={overview.error} />
			{partners.data === 0 ? (
				<EmptyState title="Add your first trading partner">
					<p>
						A partner is the AS2 endpoint you exchange messages with. <Link to="partners">Add a partner</Link> with its
						AS2 id, URL and certificate, then send it a message.
					</p>
				</EmptyState>
			) : null}
			<section aria-labelledby="today">
				<h2 id="today">Messages today (UTC)</h2>
				<div class="grid stats">
					{MESSAGE_STATUSES.map((status) => (
						<Link
							key={status}
							class="card stat"
							to="messages"
							query={{ status, from_date: startOfToday() }}
							aria-label={`${data?.today[status] ?? 0} ${status} today`}
						>
							<p class="stat-value">{data ? data.today[status] : "…"}</p>
							<p class="stat-label">
								<StatusBadge status={status} />
							</p>
						</Link>
					))}
				</div>
			</section>
			<div class="grid two">
				<Attention
					title="Failures that need attention"
					empty="No failed messages."
					rows={data?.failures.rows}
					total={data?.failures.total}
					more={{ status: "failed" }}
				/>
				<Attention
					title="MDNs overdue"
					empty="Every receipt arrived in time."
					rows={data?.mdnsOverdue.rows}
					total={data?.mdnsOverdue.total}
					more={{ mdn_status: "pending" }}
				/>
				<ListCard
					title="Certificates expiring within 30 days"
					empty="None: nothing to renew this month."
					items={data?.expiring}
					itemKey={(certificate) => certificate.id}
					render={(certificate) => (
						<>
							<Link to="certificates">{certificate.name}</Link> ({certificate.type}) expires{" "}
							{formatDate(certificate.expires_at)}
						</>
					)}
				/>
				<ListCard
					title="Webhook endpoints failing"
					empty="None: every endpoint is answering."
					items={data?.failingWebhooks}
					itemKey={(endpoint) => endpoint.id}
					render={(endpoint) => (
						<>
							<Link to="webhooks">{endpoint.url}</Link>{" "}
							{endpoint.disabled_reason
								? `disabled: ${endpoint.disabled_reason}`
								: `failing since ${formatDate(endpoint.failing_since)}`}
						</>
					)}
				/>
				<PlanUsage />
			</div>
		</Page>
	);
}

function Attention(props: {
	title: string;
	empty: string;
	rows: Message[] | undefined;
	total: number | undefined;
	more: Record<string, string>;
}) {
	const hidden = (props.total ?? 0) - (props.rows?.length ?? 0);
	return (
		<ListCard
			title={props.title}
			empty={props.empty}
			items={props.rows}
			itemKey={(message) => message.id}
			render={(message) => (
				<>
					<Link to={`messages/${message.id}`}>{message.subject || message.filename || message.message_id}</Link> to{" "}
					{message.partner.name ?? message.partner.as2_id} ·{" "}
					{message.error_code ?? <StatusBadge status={message.mdn_status} />}
				</>
			)}
			footer={
				hidden > 0 ? (
					<Link to="messages" query={props.more}>
						All {(props.total ?? 0).toLocaleString()}
					</Link>
				) : null
			}
		/>
	);
}
