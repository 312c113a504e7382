/**
 * The create form of `POST /v1/api-keys` (spec form one: scope + permissions, with
 * tenant_id for a tenant key, allowed_tenant_ids to restrict an account key, expires_at).
 */
import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import { useAuth } from "../../auth-state.tsx";
import { CheckboxGroup } from "../../components/CheckboxGroup.tsx";
import { Field } from "../../components/Field.tsx";
import { FormButtons } from "../../components/FormButtons.tsx";
import { FormError } from "../../components/FormError.tsx";
import { errorUnder, fieldsShownUnder } from "../../components/field-errors.ts";
import { useApiForm } from "../../use-api-form.ts";
import { ACCOUNT_PERMISSIONS, type CreatedApiKey, TENANT_PERMISSIONS } from "./api-key.ts";

const FIELDS = ["name", "environment", "scope", "tenant_id", "allowed_tenant_ids", "permissions", "expires_at"];

function requestFrom(form: FormData, scope: string) {
	const expires = String(form.get("expires_at") ?? "");
	const allowed = form.getAll("allowed_tenant_ids").map(String);
	return {
		name: String(form.get("name") ?? ""),
		environment: String(form.get("environment") ?? "test"),
		scope,
		...(scope === "tenant" ? { tenant_id: String(form.get("tenant_id") ?? "") } : {}),
		...(scope === "account" && allowed.length > 0 ? { allowed_tenant_ids: allowed } : {}),
		permissions: form.getAll("permissions").map(String),
		// datetime-local is the browser's local time; the API wants an instant.
		...(expires ? { expires_at: new Date(expires).toISOString() } : {}),
	};
}

export function CreateApiKeyForm(props: { onCreated: (key: CreatedApiKey) => void; onCancel: () => void }) {
	const auth = useAuth();
	const [scope, setScope] = useState<"tenant" | "account">("tenant");
	const { error, busy, submit } = useApiForm(
		(form) => api.post<{ data: CreatedApiKey }>("/v1/api-keys", requestFrom(form, scope)),
		(answer) => props.onCreated(answer.data),
	);
	const permissions = [
		["*", "Everything (*)"],
		...TENANT_PERMISSIONS.map((p) => [p, p]),
		...(scope === "account" ? ACCOUNT_PERMISSIONS.map((p) => [p, p]) : []),
	] as [string, string][];
	return (
		<form class="card form" aria-label="Create an API key" onSubmit={submit}>
			<h2>Create an API key</h2>
			<div class="form-row top">
				<Field label="Name" name="name" required maxLength={255} error={errorUnder(error, "name")} />
				<Field label="Environment" error={errorUnder(error, "environment")} hint="Test keys simulate sending.">
					{({ id, describedBy, invalid }) => (
						<select id={id} name="environment" aria-describedby={describedBy} aria-invalid={invalid || undefined}>
							<option value="test">Test</option>
							<option value="live">Live</option>
						</select>
					)}
				</Field>
				<Field label="Scope" error={errorUnder(error, "scope")} hint="An account key reaches every tenant.">
					{({ id, describedBy, invalid }) => (
						<select
							id={id}
							name="scope"
							value={scope}
							aria-describedby={describedBy}
							aria-invalid={invalid || undefined}
							onChange={(event) => setScope(event.currentTarget.value as "tenant" | "account")}
						>
							<option value="tenant">One tenant</option>
							<option value="account">Account</option>
						</select>
					)}
				</Field>
				{scope === "tenant" ? (
					<Field label="Tenant" error={errorUnder(error, "tenant_id")}>
						{({ id, describedBy, invalid }) => (
							<select
								id={id}
								name="tenant_id"
								value={auth.tenant?.id}
								aria-describedby={describedBy}
								aria-invalid={invalid || undefined}
							>
								{auth.me.tenants.map((tenant) => (
									<option key={tenant.id} value={tenant.id}>
										{tenant.name}
									</option>
								))}
							</select>
						)}
					</Field>
				) : null}
			</div>
			<div class="form-row top">
				<Field
					label="Expires"
					name="expires_at"
					type="datetime-local"
					error={errorUnder(error, "expires_at")}
					hint="Leave empty for a key that does not expire."
				/>
				<div />
			</div>
			{scope === "account" && auth.me.tenants.length > 1 ? (
				<CheckboxGroup
					legend="Restrict to tenants"
					name="allowed_tenant_ids"
					hint="None checked: every tenant of the account."
					options={auth.me.tenants.map((t) => [t.id, t.name])}
					error={errorUnder(error, "allowed_tenant_ids")}
				/>
			) : null}
			<CheckboxGroup
				legend="Permissions"
				name="permissions"
				options={permissions}
				error={errorUnder(error, "permissions")}
				hint="A write permission includes its read permission."
			/>
			<FormError error={error} fields={fieldsShownUnder(error, FIELDS)} />
			<FormButtons submitLabel="Create key" busy={busy} onCancel={props.onCancel} />
		</form>
	);
}
