/**
 * The API keys the signed-in user reaches (`GET /v1/api-keys`): create one (its full value is
 * shown once, with a copy button), see its scope, tenant, permissions and expiry, revoke it.
 */
import { useState } from "preact/hooks";
import { type ApiError, api } from "../../api.ts";
import { useAuth } from "../../auth-state.tsx";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { DataTable } from "../../components/DataTable.tsx";
import { EmptyState } from "../../components/EmptyState.tsx";
import { ErrorNote } from "../../components/ErrorNote.tsx";
import { Page } from "../../components/Page.tsx";
import { SecretBox } from "../../components/SecretBox.tsx";
import { StatusBadge } from "../../components/StatusBadge.tsx";
import { useCreateFlow } from "../../components/use-create-flow.ts";
import { formatDate } from "../../format.ts";
import { usePagedList } from "../../use-paged-list.ts";
import type { ApiKey, CreatedApiKey } from "./api-key.ts";
import { CreateApiKeyForm } from "./CreateApiKeyForm.tsx";

const isExpired = (key: ApiKey) => key.expires_at !== null && new Date(key.expires_at).getTime() <= Date.now();

export function ApiKeysScreen() {
	const auth = useAuth();
	const list = usePagedList<ApiKey>("/v1/api-keys");
	const flow = useCreateFlow<CreatedApiKey>(list.reload);
	const [revoking, setRevoking] = useState<ApiKey | null>(null);
	const [revokeBusy, setRevokeBusy] = useState(false);
	const [revokeError, setRevokeError] = useState<ApiError | null>(null);
	const tenantName = (id: string | null) => auth.me.tenants.find((t) => t.id === id)?.name ?? id ?? "";
	const revoke = async () => {
		if (!revoking) return;
		setRevokeBusy(true);
		try {
			await api.delete(`/v1/api-keys/${encodeURIComponent(revoking.id)}`);
			setRevokeError(null);
			if (flow.created?.id === revoking.id) flow.forget();
			list.reload();
		} catch (failure) {
			setRevokeError(failure as ApiError);
		} finally {
			setRevokeBusy(false);
			setRevoking(null);
		}
	};
	return (
		<Page
			title="API keys"
			lead="Keys let your systems call the as2kit API. Test keys simulate sending; live keys send real AS2 messages."
			actions={
				flow.creating ? null : (
					<button type="button" class="button primary" onClick={flow.open}>
						Create an API key
					</button>
				)
			}
		>
			{flow.created ? <SecretBox label={`API key ${flow.created.name}`} secret={flow.created.key} /> : null}
			{flow.creating ? <CreateApiKeyForm onCreated={flow.done} onCancel={flow.cancel} /> : null}
			<ErrorNote error={list.error ?? revokeError} />
			{list.pagination?.total === 0 ? (
				<EmptyState title="No API keys yet">
					<p>Create a test key to try the API without sending anything real, then a live key for production.</p>
				</EmptyState>
			) : (
				<DataTable<ApiKey>
					caption="API keys"
					rows={list.rows}
					rowKey={(key) => key.id}
					pagination={list.pagination}
					onPage={list.setPage}
					columns={[
						{ header: "Name", render: (k) => k.name },
						{ header: "Key", render: (k) => <code class="nowrap">{`${k.key_prefix}…${k.key_last4}`}</code> },
						{
							header: "Reach",
							render: (k) =>
								k.scope === "tenant"
									? `Tenant ${tenantName(k.tenant_id)}`
									: k.allowed_tenant_ids
										? `Account, only ${k.allowed_tenant_ids.map(tenantName).join(", ")}`
										: "Account, every tenant",
						},
						{ header: "Environment", render: (k) => <StatusBadge status={k.environment} /> },
						{ header: "Permissions", render: (k) => k.permissions.join(", ") },
						{ header: "Last used", render: (k) => (k.last_used_at ? formatDate(k.last_used_at) : "Never") },
						{
							header: "Expires",
							render: (k) =>
								isExpired(k) ? <StatusBadge status="expired" /> : k.expires_at ? formatDate(k.expires_at) : "Never",
						},
						{ header: "Created", render: (k) => formatDate(k.created_at) },
						{
							header: "Actions",
							render: (k) => (
								<button
									type="button"
									class="button ghost"
									aria-label={`Revoke ${k.name}`}
									onClick={() => setRevoking(k)}
								>
									Revoke
								</button>
							),
						},
					]}
				/>
			)}
			<ConfirmDialog
				open={revoking !== null}
				title="Revoke this API key?"
				confirmLabel="Revoke key"
				danger
				busy={revokeBusy}
				onConfirm={revoke}
				onCancel={() => setRevoking(null)}
			>
				<p>
					Requests with <strong>{revoking?.name}</strong> (
					{revoking ? `${revoking.key_prefix}…${revoking.key_last4}` : ""}) are refused from now on. This cannot be
					undone.
				</p>
			</ConfirmDialog>
		</Page>
	);
}
