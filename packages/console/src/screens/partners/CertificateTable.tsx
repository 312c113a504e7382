/**
 * Certificates with what a person checks before trusting one: usage, fingerprint, validity,
 * and whether it is active. Rollover (decisions.md): two certificates of one usage may be
 * active at once, so the new one is uploaded and activated before the old one is deactivated.
 */

import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { type ApiError, api, type Pagination } from "../../api.ts";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { DataTable } from "../../components/DataTable.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { StatusBadge } from "../../components/StatusBadge.tsx";
import { certificateState, daysLeft, formatDay, pemFileName, saveText } from "./certificate-state.ts";
import type { Certificate } from "./partner-types.ts";

export function CertificateTable(props: {
	caption: string;
	certificates: Certificate[];
	onChange: () => void;
	/** Inherited partners' certificates belong to the master partner: shown, not changed. */
	readOnly?: boolean;
	showPartner?: (certificate: Certificate) => ComponentChildren;
	pagination?: Pagination | null;
	onPage?: (page: number) => void;
}) {
	const [error, setError] = useState<ApiError | null>(null);
	const [deleting, setDeleting] = useState<Certificate | null>(null);
	const [busy, setBusy] = useState(false);
	const act = async (action: () => Promise<unknown>) => {
		setBusy(true);
		setError(null);
		try {
			await action();
			props.onChange();
		} catch (failure) {
			setError(failure as ApiError);
		} finally {
			setBusy(false);
		}
	};
	return (
		<>
			<ErrorNote error={error} />
			<DataTable<Certificate>
				caption={props.caption}
				rows={props.certificates}
				rowKey={(c) => c.id}
				pagination={props.pagination}
				onPage={props.onPage}
				columns={[
					{
						header: "Certificate",
						render: (c) => (
							<>
								<strong>{c.name}</strong>
								<div class="cell-detail">{c.subject}</div>
							</>
						),
					},
					...(props.showPartner ? [{ header: "Partner", render: props.showPartner }] : []),
					{ header: "Usage", render: (c) => c.usage },
					{
						header: "Fingerprint (SHA-256)",
						render: (c) => <code class="fingerprint">{c.fingerprint.replace(/^SHA256:/, "")}</code>,
					},
					{
						header: "Valid",
						render: (c) => (
							<>
								{formatDay(c.not_before)} – {formatDay(c.expires_at)}
								<div class="cell-detail">
									{daysLeft(c) > 0 ? `${daysLeft(c)} days left` : `expired ${-daysLeft(c)} days ago`}
								</div>
							</>
						),
					},
					{ header: "State", render: (c) => <StatusBadge status={certificateState(c)} /> },
					{
						header: "Actions",
						render: (c) => (
							<div class="row-actions">
								<button
									type="button"
									class="button ghost"
									aria-label={`Download ${c.name}`}
									onClick={() => saveText(pemFileName(c), c.certificate_pem)}
								>
									Download
								</button>
								{props.readOnly ? null : (
									<>
										<button
											type="button"
											class="button ghost"
											disabled={busy}
											aria-label={`${c.active ? "Deactivate" : "Activate"} ${c.name}`}
											onClick={() =>
												act(() => api.post(`/v1/certificates/${c.id}/${c.active ? "deactivate" : "activate"}`))
											}
										>
											{c.active ? "Deactivate" : "Activate"}
										</button>
										<button
											type="button"
											class="button ghost"
											disabled={busy}
											aria-label={`Delete ${c.name}`}
											onClick={() => setDeleting(c)}
										>
											Delete
										</button>
									</>
								)}
							</div>
						),
					},
				]}
			/>
			<ConfirmDialog
				open={deleting !== null}
				title={`Delete the certificate ${deleting?.name ?? ""}?`}
				confirmLabel="Delete certificate"
				danger
				busy={busy}
				onCancel={() => setDeleting(null)}
				onConfirm={() => {
					const target = deleting;
					setDeleting(null);
					if (target) void act(() => api.delete(`/v1/certificates/${target.id}`));
				}}
			>
				<p>
					Messages that need it (signatures to verify, encryption to this partner) will fail until another is active.
				</p>
			</ConfirmDialog>
		</>
	);
}
