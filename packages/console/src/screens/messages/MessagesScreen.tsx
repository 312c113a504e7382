/** The tenant's messages: filters are the API's query parameters, one page at a time. */
import { useState } from "preact/hooks";
import { DataTable } from "../../components/DataTable.tsx";
import { EmptyState } from "../../components/EmptyState.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { Field } from "../../components/Field.tsx";
import { FilterBar } from "../../components/FilterBar.tsx";
import { Page } from "../../components/Page.tsx";
import { SelectField } from "../../components/SelectField.tsx";
import { StatusBadge } from "../../components/StatusBadge.tsx";
import { formatBytes, formatDate } from "../../format.ts";
import { Link, useLocation } from "../../router.tsx";
import type { Message } from "../../types.ts";
import { usePagedList } from "../../use-paged-list.ts";
import { usePartnerPicker } from "../../use-partners.ts";

const STATUSES = ["queued", "processing", "sent", "delivered", "failed", "received"];
const FILTER_NAMES = [
	"status",
	"direction",
	"partner_id",
	"mdn_status",
	"environment",
	"from_date",
	"to_date",
	"search",
];

export function MessagesScreen() {
	const { query } = useLocation();
	// Links from the overview arrive with their filters in the query (`messages?status=failed`).
	const [filters, setFilters] = useState<Record<string, string>>(() =>
		Object.fromEntries(FILTER_NAMES.flatMap((name) => (query.get(name) ? [[name, query.get(name)!]] : []))),
	);
	const list = usePagedList<Message>("/v1/messages", filters);
	const partners = usePartnerPicker();
	const fieldError = (name: string) => list.error?.field(name);
	const fieldErrorsShown = list.error && Object.keys(list.error.fields).every((f) => FILTER_NAMES.includes(f));
	return (
		<Page
			title="Messages"
			lead="Everything sent to and received from your trading partners."
			actions={
				<Link class="button primary" to="messages/new">
					Send a message
				</Link>
			}
		>
			<FilterBar label="Filter messages" onApply={setFilters}>
				<Field label="Search" name="search" type="search" value={filters.search ?? ""} error={fieldError("search")} />
				<SelectField
					label="Status"
					name="status"
					value={filters.status ?? ""}
					error={fieldError("status")}
					options={[["", "Any status"], ...STATUSES.map((s): [string, string] => [s, s])]}
				/>
				<SelectField
					label="Direction"
					name="direction"
					value={filters.direction ?? ""}
					error={fieldError("direction")}
					options={[
						["", "Both directions"],
						["outbound", "Outbound"],
						["inbound", "Inbound"],
					]}
				/>
				<SelectField
					label="Partner"
					name="partner_id"
					value={filters.partner_id ?? ""}
					error={fieldError("partner_id")}
					options={[["", "Any partner"], ...partners.rows.map((p): [string, string] => [p.id, p.name])]}
				/>
				<SelectField
					label="MDN"
					name="mdn_status"
					value={filters.mdn_status ?? ""}
					error={fieldError("mdn_status")}
					options={[
						["", "Any MDN status"],
						...["pending", "received", "failed", "timeout", "none"].map((s): [string, string] => [s, s]),
					]}
				/>
				<SelectField
					label="Environment"
					name="environment"
					value={filters.environment ?? ""}
					error={fieldError("environment")}
					options={[
						["", "Test and live"],
						["live", "Live"],
						["test", "Test"],
					]}
				/>
				<Field
					label="From"
					name="from_date"
					type="date"
					value={filters.from_date ?? ""}
					error={fieldError("from_date")}
				/>
				<Field label="To" name="to_date" type="date" value={filters.to_date ?? ""} error={fieldError("to_date")} />
			</FilterBar>
			{fieldErrorsShown && Object.keys(list.error?.fields ?? {}).length > 0 ? null : <ErrorNote error={list.error} />}
			{list.pagination?.total === 0 && Object.keys(filters).length === 0 ? (
				<EmptyState title="No messages yet">
					<p>
						Add a partner, then <Link to="messages/new">send your first message</Link>. Messages your partners send
						appear here too.
					</p>
				</EmptyState>
			) : (
				<DataTable<Message>
					caption="Messages"
					rows={list.rows}
					rowKey={(message) => message.id}
					pagination={list.pagination}
					onPage={list.setPage}
					columns={[
						{
							header: "Message",
							render: (m) => (
								<>
									<Link to={`messages/${m.id}`}>{m.subject || m.filename || m.message_id}</Link>
									{m.environment === "test" ? <span class="badge badge-neutral tag">test</span> : null}
								</>
							),
						},
						{ header: "Status", render: (m) => <StatusBadge status={m.status} /> },
						{ header: "Direction", render: (m) => m.direction },
						{ header: "Partner", render: (m) => m.partner.name ?? m.partner.as2_id ?? m.partner.id },
						{ header: "Size", numeric: true, render: (m) => formatBytes(m.bytes) },
						{ header: "Created", render: (m) => formatDate(m.created_at) },
					]}
				/>
			)}
		</Page>
	);
}
