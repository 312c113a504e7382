/** The tenant's partners and the account's inherited ones: filters are the API's query parameters. */
import { useState } from "preact/hooks";
import { ActiveFilter } from "../../components/ActiveFilter.tsx";
import { DataTable } from "../../components/DataTable.tsx";
import { EmptyState } from "../../components/EmptyState.tsx";
import { ListErrorNote } from "../../components/ErrorNote.tsx";
import { Field } from "../../components/Field.tsx";
import { FilterBar } from "../../components/FilterBar.tsx";
import { Page } from "../../components/Page.tsx";
import { SelectField } from "../../components/SelectField.tsx";
import { StatusBadge } from "../../components/StatusBadge.tsx";
import { formatDate } from "../../format.ts";
import { Link } from "../../router.tsx";
import { usePagedList } from "../../use-paged-list.ts";
import type { Partner } from "./partner-types.ts";

export function PartnersScreen() {
	const [filters, setFilters] = useState<Record<string, string>>({});
	const list = usePagedList<Partner>("/v1/partners", filters);
	const fieldError = (name: string) => list.error?.field(name);
	return (
		<Page
			title="Partners"
			lead="The trading partners this tenant exchanges AS2 messages with."
			actions={
				<>
					<Link class="button ghost" to="partners/master">
						Master partners
					</Link>
					<Link class="button primary" to="partners/new">
						Add a partner
					</Link>
				</>
			}
		>
			<FilterBar label="Filter partners" onApply={setFilters}>
				<Field
					label="Search"
					name="search"
					type="search"
					// Uncontrolled: a re-render (the list loading) must not undo what the user is typing.
					defaultValue={filters.search ?? ""}
					error={fieldError("search")}
					placeholder="Name or AS2 ID"
				/>
				<ActiveFilter value={filters.active} error={fieldError("active")} />
				<SelectField
					label="Kind"
					name="type"
					value={filters.type ?? ""}
					error={fieldError("type")}
					options={[
						["", "All partners"],
						["tenant", "This tenant's"],
						["inherited", "Inherited from the account"],
					]}
				/>
			</FilterBar>
			<ListErrorNote error={list.error} />
			{list.pagination?.total === 0 && Object.keys(filters).length === 0 ? (
				<EmptyState title="No partners yet">
					<p>
						<Link to="partners/new">Add your first partner</Link> with its AS2 ID, URL and certificate, or create a{" "}
						<Link to="partners/master">master partner</Link> that every tenant of the account inherits.
					</p>
				</EmptyState>
			) : (
				<DataTable<Partner>
					caption="Partners"
					rows={list.rows}
					rowKey={(partner) => partner.id}
					pagination={list.pagination}
					onPage={list.setPage}
					columns={[
						{ header: "Partner", render: (p) => <Link to={`partners/${p.id}`}>{p.name}</Link> },
						{ header: "AS2 ID", render: (p) => <code>{p.as2_id}</code> },
						{ header: "State", render: (p) => <StatusBadge status={p.active ? "active" : "inactive"} /> },
						{
							header: "Kind",
							render: (p) =>
								p.type === "inherited" ? (p.has_overrides ? "Inherited, overridden" : "Inherited") : "Tenant",
						},
						{ header: "Security", render: securitySummary },
						{ header: "MDN", render: (p) => p.mdn_mode },
						{ header: "Updated", render: (p) => formatDate(p.updated_at) },
					]}
				/>
			)}
		</Page>
	);
}

export function securitySummary(p: Pick<Partner, "sign" | "encrypt" | "compress">): string {
	const parts = [p.sign && "signed", p.encrypt && "encrypted", p.compress && "compressed"].filter(Boolean);
	return parts.length > 0 ? parts.join(", ") : "plain";
}
