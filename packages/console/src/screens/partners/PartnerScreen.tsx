/**
 * One partner: what it is, its statistics, certificates, checks and settings. An inherited
 * partner (a master partner of the account) shows which settings this tenant overrides and
 * which it inherits; saving stores overrides, and "Reset to master" drops them.
 */
import { Fragment } from "preact";
import { useState } from "preact/hooks";
import { type ApiError, api } from "../../api.ts";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { NotFound } from "../../components/NotFound.tsx";
import { Page } from "../../components/Page.tsx";
import { StatusBadge } from "../../components/StatusBadge.tsx";
import { formatDate, formatDuration } from "../../format.ts";
import { Link, navigate } from "../../router.tsx";
import type { RouteParams } from "../../routes.tsx";
import { CertificateTable } from "./CertificateTable.tsx";
import { CertificateUpload } from "./CertificateUpload.tsx";
import { PartnerChecks } from "./PartnerChecks.tsx";
import { PartnerForm } from "./PartnerForm.tsx";
import { PartnerStatsCard } from "./PartnerStatsCard.tsx";
import { securitySummary } from "./PartnersScreen.tsx";
import { NEW_PARTNER, valuesOf } from "./partner-form-values.ts";
import type { PartnerDetail } from "./partner-types.ts";
import { usePartner } from "./use-partner.ts";

export function PartnerScreen({ params }: { params: RouteParams }) {
	const id = params.id ?? "";
	const { partner, configuration, error, reload } = usePartner(id);
	const [saved, setSaved] = useState<string | null>(null);
	if (error?.status === 404) return <NotFound />;
	if (!partner) {
		return <Page title="Partner">{error ? <ErrorNote error={error} /> : <p aria-busy="true">Loading…</p>}</Page>;
	}
	const inherited = partner.type === "inherited";
	const overridden = new Set(Object.keys(partner.override_settings ?? {}));
	const origin = inherited
		? (field: string) =>
				overridden.has(field) ? (
					<span class="origin origin-own">Overridden for this tenant.</span>
				) : (
					<span class="origin">Inherited from the master partner.</span>
				)
		: undefined;
	return (
		<Page
			title={partner.name}
			lead={
				<>
					<code>{partner.as2_id}</code> · {partner.url}
				</>
			}
			actions={<PartnerActions partner={partner} onChange={reload} />}
		>
			<p class="back-link">
				<Link to="partners">← All partners</Link>
			</p>
			<ErrorNote error={error} />
			{saved ? (
				<p class="notice" role="status">
					{saved}
				</p>
			) : null}
			<section class="card" aria-labelledby="partner-summary">
				<h2 id="partner-summary">Summary</h2>
				<dl class="facts">
					<dt>State</dt>
					<dd>
						<StatusBadge status={partner.active ? "active" : "inactive"} />
					</dd>
					<dt>Kind</dt>
					<dd>
						{inherited
							? `Inherited from the account${partner.has_overrides ? ", with this tenant's overrides" : ""}`
							: "This tenant's partner"}
					</dd>
					<dt>Security</dt>
					<dd>
						{securitySummary(partner)}
						{partner.sign_algorithm ? ` · ${partner.sign_algorithm}` : ""}
						{partner.encrypt_algorithm ? ` · ${partner.encrypt_algorithm}` : ""}
					</dd>
					<dt>MDN</dt>
					<dd>{partner.mdn_mode}</dd>
					<dt>Compatibility</dt>
					<dd>{partner.compatibility.profile ?? "strict RFC"}</dd>
					<dt>Last test</dt>
					<dd>
						{partner.connection_status.last_test ? (
							<>
								<StatusBadge
									status={
										partner.connection_status.last_test_result === "failure"
											? "failed"
											: partner.connection_status.last_test_result
									}
								/>{" "}
								{formatDate(partner.connection_status.last_test)} ·{" "}
								{formatDuration(partner.connection_status.response_time_ms)}
							</>
						) : (
							"never: run a test below"
						)}
					</dd>
					<dt>Last message</dt>
					<dd>{formatDate(partner.last_message_at)}</dd>
				</dl>
			</section>
			<PartnerStatsCard partnerId={partner.id} />
			<section class="card" aria-labelledby="partner-certificates">
				<h2 id="partner-certificates">Certificates</h2>
				<p class="field-hint">
					The partner's public certificates: signatures from the partner are verified with them and messages to it are
					encrypted to them. To roll over, upload the new one: both stay active until you deactivate the old.
				</p>
				{partner.certificates.length === 0 ? (
					<p class="empty-inline">
						No certificate yet
						{inherited ? " on the master partner: upload it there" : ": upload the one the partner sent you"}.
					</p>
				) : (
					<CertificateTable
						caption={`Certificates of ${partner.name}`}
						certificates={partner.certificates}
						onChange={reload}
						readOnly={inherited}
					/>
				)}
				{inherited ? (
					<p class="field-hint">
						They belong to the master partner, for every tenant:{" "}
						<Link to={`partners/master/${partner.master_partner_id ?? partner.id}`}>manage them there</Link>.
					</p>
				) : (
					<CertificateUpload partnerId={partner.id} onDone={reload} />
				)}
			</section>
			<PartnerChecks partnerId={partner.id} onTested={reload} />
			{inherited ? <OverridesCard partner={partner} onChange={reload} /> : null}
			<section class="card" aria-labelledby="partner-settings">
				<h2 id="partner-settings">{inherited ? "Settings for this tenant" : "Settings"}</h2>
				<PartnerForm
					key={partner.updated_at + JSON.stringify(partner.override_settings ?? {})}
					initial={valuesOf(partner, configuration)}
					defaults={NEW_PARTNER}
					submitLabel={inherited ? "Save overrides" : "Save changes"}
					origin={origin}
					send={(body) => api.patch(`/v1/partners/${encodeURIComponent(partner.id)}`, body)}
					onDone={() => {
						setSaved(inherited ? "Overrides saved." : "Changes saved.");
						reload();
					}}
				/>
			</section>
		</Page>
	);
}

function PartnerActions({ partner, onChange }: { partner: PartnerDetail; onChange: () => void }) {
	const [confirming, setConfirming] = useState(false);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<ApiError | null>(null);
	const path = `/v1/partners/${encodeURIComponent(partner.id)}`;
	const act = async (action: () => Promise<unknown>, then: () => void) => {
		setBusy(true);
		setError(null);
		try {
			await action();
			then();
		} catch (failure) {
			setError(failure as ApiError);
		} finally {
			setBusy(false);
		}
	};
	return (
		<>
			<ErrorNote error={error} />
			<button
				type="button"
				class="button"
				disabled={busy}
				onClick={() => act(() => api.post(`${path}/${partner.active ? "deactivate" : "activate"}`), onChange)}
			>
				{partner.active ? "Deactivate" : "Activate"}
			</button>
			{partner.type === "tenant" ? (
				<button type="button" class="button danger" disabled={busy} onClick={() => setConfirming(true)}>
					Delete partner
				</button>
			) : (
				<Link class="button ghost" to={`partners/master/${partner.master_partner_id ?? partner.id}`}>
					Open master partner
				</Link>
			)}
			<ConfirmDialog
				open={confirming}
				title={`Delete ${partner.name}?`}
				confirmLabel="Delete partner"
				danger
				busy={busy}
				onCancel={() => setConfirming(false)}
				onConfirm={() =>
					act(
						() => api.delete(path),
						() => navigate("partners"),
					).finally(() => setConfirming(false))
				}
			>
				<p>Its certificates become inactive; its messages stay in the history. This cannot be undone.</p>
			</ConfirmDialog>
		</>
	);
}

function OverridesCard({ partner, onChange }: { partner: PartnerDetail; onChange: () => void }) {
	const [error, setError] = useState<ApiError | null>(null);
	const [confirming, setConfirming] = useState(false);
	const overrides = Object.entries(partner.override_settings ?? {});
	return (
		<section class="card" aria-labelledby="partner-overrides">
			<h2 id="partner-overrides">Overrides</h2>
			{overrides.length === 0 ? (
				<p class="empty-inline">
					This tenant uses the master partner's settings as they are. Change a setting below to override it here only.
				</p>
			) : (
				<>
					<dl class="facts">
						{overrides.map(([field, value]) => (
							<Fragment key={field}>
								<dt>{field.replaceAll("_", " ")}</dt>
								<dd>
									<code>{typeof value === "object" ? JSON.stringify(value) : String(value)}</code>
								</dd>
							</Fragment>
						))}
					</dl>
					<ErrorNote error={error} />
					<div class="page-actions">
						<button type="button" class="button" onClick={() => setConfirming(true)}>
							Reset to master
						</button>
					</div>
				</>
			)}
			<ConfirmDialog
				open={confirming}
				title="Drop this tenant's overrides?"
				confirmLabel="Reset to master"
				onCancel={() => setConfirming(false)}
				onConfirm={() => {
					setConfirming(false);
					api
						.delete(`/v1/partners/${encodeURIComponent(partner.id)}/overrides`)
						.then(onChange)
						.catch((failure: ApiError) => setError(failure));
				}}
			>
				<p>Every setting goes back to the master partner's value.</p>
			</ConfirmDialog>
		</section>
	);
}
