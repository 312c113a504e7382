/**
 * The account's master partners (`/v1/accounts/{account_id}/partners`): defined once, inherited
 * by every tenant, each of which may override settings for itself.
 */
import { useState } from "preact/hooks";
import { ActiveFilter } from "../../components/ActiveFilter.tsx";
import { DataTable } from "../../components/DataTable.tsx";
import { EmptyState } from "../../components/EmptyState.tsx";
import { ErrorNote, ListErrorNote } from "../../components/ErrorNote.tsx";
import { Field } from "../../components/Field.tsx";
import { FilterBar } from "../../components/FilterBar.tsx";
import { Page } from "../../components/Page.tsx";
import { StatusBadge } from "../../components/StatusBadge.tsx";
import { formatDate } from "../../format.ts";
import { Link } from "../../router.tsx";
import { usePagedList } from "../../use-paged-list.ts";
import { securitySummary } from "../partners/PartnersScreen.tsx";
import type { Partner } from "../partners/partner-types.ts";
import { masterPath, useAccountId } from "./use-account-id.ts";

export function MasterPartnersScreen() {
	const { accountId, error } = useAccountId();
	return (
		<Page
			title="Master partners"
			lead="Partners defined once for the whole account: every tenant inherits them and may override settings."
			actions={
				<>
					<Link class="button ghost" to="partners">
						Tenant partners
					</Link>
					<Link class="button primary" to="partners/master/new">
						Add a master partner
					</Link>
				</>
			}
		>
			<ErrorNote error={error} />
			{accountId ? <MasterPartnerList accountId={accountId} /> : null}
		</Page>
	);
}

function MasterPartnerList({ accountId }: { accountId: string }) {
	const [filters, setFilters] = useState<Record<string, string>>({});
	const list = usePagedList<Partner>(masterPath(accountId), filters);
	return (
		<>
			<FilterBar label="Filter master partners" onApply={setFilters}>
				<Field
					label="Search"
					name="search"
					type="search"
					// Uncontrolled: a re-render (the list loading) must not undo what the user is typing.
					defaultValue={filters.search ?? ""}
					error={list.error?.field("search")}
					placeholder="Name or AS2 ID"
				/>
				<ActiveFilter value={filters.active} error={list.error?.field("active")} />
			</FilterBar>
			<ListErrorNote error={list.error} />
			{list.pagination?.total === 0 && Object.keys(filters).length === 0 ? (
				<EmptyState title="No master partners yet">
					<p>
						<Link to="partners/master/new">Add a master partner</Link> when several tenants trade with the same partner:
						its settings are kept in one place.
					</p>
				</EmptyState>
			) : (
				<DataTable<Partner>
					caption="Master partners"
					rows={list.rows}
					rowKey={(partner) => partner.id}
					pagination={list.pagination}
					onPage={list.setPage}
					columns={[
						{ header: "Partner", render: (p) => <Link to={`partners/master/${p.id}`}>{p.name}</Link> },
						{ header: "AS2 ID", render: (p) => <code>{p.as2_id}</code> },
						{ header: "State", render: (p) => <StatusBadge status={p.active ? "active" : "inactive"} /> },
						{ header: "Security", render: securitySummary },
						{ header: "MDN", render: (p) => p.mdn_mode },
						{ header: "Updated", render: (p) => formatDate(p.updated_at) },
					]}
				/>
			)}
		</>
	);
}
