/**
 * One master partner: its settings for the whole account (a change reaches every tenant that
 * does not override that field), its certificates, and a way to the tenant's inherited view,
 * where the tenant's overrides are kept.
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import { type ApiError, api } from "../../api.ts";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { NotFound } from "../../components/NotFound.tsx";
import { Page } from "../../components/Page.tsx";
import { StatusBadge } from "../../components/StatusBadge.tsx";
import { formatDate } from "../../format.ts";
import { Link, navigate } from "../../router.tsx";
import type { RouteParams } from "../../routes.tsx";
import { CertificateTable } from "../partners/CertificateTable.tsx";
import { CertificateUpload } from "../partners/CertificateUpload.tsx";
import { PartnerForm } from "../partners/PartnerForm.tsx";
import { securitySummary } from "../partners/PartnersScreen.tsx";
import { NEW_PARTNER, SWITCHES, valuesOf } from "../partners/partner-form-values.ts";
import type { Certificate, Partner } from "../partners/partner-types.ts";
import { usePartner } from "../partners/use-partner.ts";
import { masterPath, useAccountId } from "./use-account-id.ts";

type MasterPartner = Partner & { certificates: Certificate[] };

export function MasterPartnerScreen({ params }: { params: RouteParams }) {
	const id = params.id ?? "";
	const account = useAccountId();
	const [partner, setPartner] = useState<MasterPartner | null>(null);
	const [error, setError] = useState<ApiError | null>(null);
	const [saved, setSaved] = useState<string | null>(null);
	const [confirming, setConfirming] = useState(false);
	const [version, setVersion] = useState(0);
	const reload = useCallback(() => setVersion((n) => n + 1), []);
	const accountId = account.accountId;
	// The master's own view lacks the compatibility and HTTP groups; the tenant's inherited view
	// has them, and shows the master's values wherever the tenant does not override them.
	const inherited = usePartner(id);
	useEffect(() => {
		if (!accountId) return;
		if (version > 0) inherited.reload();
		api
			.get<{ data: MasterPartner }>(masterPath(accountId, id))
			.then((answer) => {
				setPartner(answer.data);
				setError(null);
			})
			.catch((failure: ApiError) => setError(failure));
	}, [accountId, id, version]);
	if (error?.status === 404) return <NotFound />;
	if (!partner || !accountId || (!inherited.partner && !inherited.error)) {
		return (
			<Page title="Master partner">
				{error || account.error ? <ErrorNote error={error ?? account.error} /> : <p aria-busy="true">Loading…</p>}
			</Page>
		);
	}
	const initial = valuesOf(partner, null);
	const overridden = Object.keys(inherited.partner?.override_settings ?? {});
	const unknown = {
		compatibility:
			!inherited.partner || overridden.includes("compatibility")
				? "This tenant overrides the compatibility settings, so the master's cannot be shown here: reset the tenant's overrides (View in this tenant) to see and change them."
				: undefined,
		http:
			!inherited.configuration || overridden.includes("http")
				? "This tenant overrides the HTTP authentication, so the master's cannot be shown here: reset the tenant's overrides to see and change it."
				: undefined,
	};
	if (inherited.partner && !unknown.compatibility) {
		const seen = valuesOf(inherited.partner, inherited.configuration);
		for (const name of ["profile", ...SWITCHES.map((s) => s.name)]) initial[name] = seen[name] ?? "";
	}
	if (inherited.configuration && !unknown.http)
		initial.auth_username = inherited.configuration.http.auth?.username ?? "";
	const remove = () =>
		api
			.delete(masterPath(accountId, partner.id))
			.then(() => navigate("partners/master"))
			.catch((failure: ApiError) => {
				setConfirming(false);
				setError(failure);
			});
	return (
		<Page
			title={partner.name}
			lead={
				<>
					Master partner · <code>{partner.as2_id}</code> · {partner.url}
				</>
			}
			actions={
				<>
					<Link class="button" to={`partners/${partner.id}`}>
						View in this tenant
					</Link>
					<button type="button" class="button danger" onClick={() => setConfirming(true)}>
						Delete master partner
					</button>
				</>
			}
		>
			<p class="back-link">
				<Link to="partners/master">← All master partners</Link>
			</p>
			<ErrorNote error={error} />
			{saved ? (
				<p class="notice" role="status">
					{saved}
				</p>
			) : null}
			<section class="card" aria-labelledby="master-summary">
				<h2 id="master-summary">Summary</h2>
				<dl class="facts">
					<dt>State</dt>
					<dd>
						<StatusBadge status={partner.active ? "active" : "inactive"} />
					</dd>
					<dt>Security</dt>
					<dd>{securitySummary(partner)}</dd>
					<dt>MDN</dt>
					<dd>{partner.mdn_mode}</dd>
					<dt>Updated</dt>
					<dd>{formatDate(partner.updated_at)}</dd>
				</dl>
			</section>
			<section class="card" aria-labelledby="master-certificates">
				<h2 id="master-certificates">Certificates</h2>
				<p class="field-hint">
					Every tenant uses these to verify this partner's signatures and to encrypt to it. To roll over, upload the new
					one: both stay active until you deactivate the old.
				</p>
				{partner.certificates.length === 0 ? (
					<p class="empty-inline">No certificate yet: upload the one the partner sent you.</p>
				) : (
					<CertificateTable
						caption={`Certificates of ${partner.name}`}
						certificates={partner.certificates}
						onChange={reload}
					/>
				)}
				<CertificateUpload partnerId={partner.id} onDone={reload} />
			</section>
			<section class="card" aria-labelledby="master-settings">
				<h2 id="master-settings">Settings for every tenant</h2>
				<p class="field-hint">
					A change reaches every tenant that does not override that setting; overrides are kept on each tenant's view.
				</p>
				<PartnerForm
					key={partner.updated_at + String(inherited.partner?.updated_at)}
					initial={initial}
					unknownGroups={unknown}
					defaults={NEW_PARTNER}
					submitLabel="Save for every tenant"
					send={(body) => api.patch(masterPath(accountId, partner.id), body)}
					onDone={() => {
						setSaved("Saved for every tenant.");
						reload();
					}}
				/>
			</section>
			<ConfirmDialog
				open={confirming}
				title={`Delete ${partner.name} for every tenant?`}
				confirmLabel="Delete master partner"
				danger
				onCancel={() => setConfirming(false)}
				onConfirm={remove}
			>
				<p>Every tenant loses this partner and its overrides; messages stay in the history.</p>
			</ConfirmDialog>
		</Page>
	);
}
