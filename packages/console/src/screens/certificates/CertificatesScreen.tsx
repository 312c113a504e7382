/**
 * The tenant's certificates: its own identity (what partners need from us: download the public
 * certificate and send it to them; roll it over by uploading the next one) and the partners'
 * certificates with their expiry, filtered like the API (`type`, `active`, `partner_id`).
 */
import { useState } from "preact/hooks";
import { ActiveFilter } from "../../components/ActiveFilter.tsx";
import { EmptyState } from "../../components/EmptyState.tsx";
import { ErrorNote, ListErrorNote } from "../../components/ErrorNote.tsx";
import { FilterBar } from "../../components/FilterBar.tsx";
import { Page } from "../../components/Page.tsx";
import { SelectField } from "../../components/SelectField.tsx";
import { Link } from "../../router.tsx";
import { usePagedList } from "../../use-paged-list.ts";
import { usePartnerOptions } from "../../use-partners.ts";
import { CertificateTable } from "../partners/CertificateTable.tsx";
import { certificateState } from "../partners/certificate-state.ts";
import type { Certificate } from "../partners/partner-types.ts";
import { IdentityUpload } from "./IdentityUpload.tsx";

const IDENTITY = { type: "identity" };

export function CertificatesScreen() {
	const identities = usePagedList<Certificate>("/v1/certificates", IDENTITY);
	const attention = identities.rows.filter((c) => ["expired", "expiring"].includes(certificateState(c)));
	return (
		<Page
			title="Certificates"
			lead="Your identity, which partners use to verify and encrypt to you, and the certificates your partners sent."
		>
			<section class="card" aria-labelledby="identity-heading">
				<h2 id="identity-heading">Your identity</h2>
				<p class="field-hint">
					Download the public certificate and send it to each partner. To roll over, upload the next identity: both stay
					active (we sign with the newest, and read messages encrypted to either) until you deactivate the old.
				</p>
				{attention.length > 0 ? (
					<p class="form-error" role="alert">
						{attention.map((c) => c.name).join(", ")} {attention.length === 1 ? "expires" : "expire"} within 30 days or
						already did: upload a new identity and send it to your partners.
					</p>
				) : null}
				<ErrorNote error={identities.error} />
				<CertificateTable
					caption="Identity certificates"
					certificates={identities.rows}
					onChange={identities.reload}
					pagination={identities.pagination}
					onPage={identities.setPage}
				/>
				<h3>Upload a new identity</h3>
				<IdentityUpload onDone={identities.reload} />
			</section>
			<PartnerCertificates />
		</Page>
	);
}

function PartnerCertificates() {
	const [filters, setFilters] = useState<Record<string, string>>({});
	const list = usePagedList<Certificate>("/v1/certificates", { type: "partner", ...filters });
	const partners = usePartnerOptions();
	const names = new Map(partners.map((p) => [p.id, p.name]));
	return (
		<section class="card" aria-labelledby="partner-certificates-heading">
			<h2 id="partner-certificates-heading">Partner certificates</h2>
			<FilterBar label="Filter partner certificates" onApply={setFilters}>
				<SelectField
					label="Partner"
					name="partner_id"
					value={filters.partner_id ?? ""}
					error={list.error?.field("partner_id")}
					options={[["", "Any partner"], ...partners.map((p): [string, string] => [p.id, p.name])]}
				/>
				<ActiveFilter value={filters.active} error={list.error?.field("active")} />
			</FilterBar>
			<ListErrorNote error={list.error} />
			{list.pagination?.total === 0 && Object.keys(filters).length === 0 ? (
				<EmptyState title="No partner certificates yet">
					<p>
						Open a partner in <Link to="partners">Partners</Link> and upload the certificate it sent you.
					</p>
				</EmptyState>
			) : (
				<CertificateTable
					caption="Partner certificates"
					certificates={list.rows}
					onChange={list.reload}
					pagination={list.pagination}
					onPage={list.setPage}
					showPartner={(c) =>
						c.partner_id ? <Link to={`partners/${c.partner_id}`}>{names.get(c.partner_id) ?? c.partner_id}</Link> : "—"
					}
				/>
			)}
		</section>
	);
}
