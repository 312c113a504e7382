/** The create form of `POST /v1/webhook-endpoints`: URL, event kinds, an optional secret of one's own. */
import { api } from "../../api.ts";
import { CheckboxGroup } from "../../components/CheckboxGroup.tsx";
import { Field } from "../../components/Field.tsx";
import { FormError } from "../../components/FormError.tsx";
import { errorUnder, fieldsShownUnder } from "../../components/field-errors.ts";
import { useApiForm } from "../../use-api-form.ts";
import { type CreatedWebhookEndpoint, EVENT_CHOICES } from "./webhook.ts";

const FIELDS = ["url", "events", "secret"];

export function CreateWebhookForm(props: {
	onCreated: (endpoint: CreatedWebhookEndpoint) => void;
	onCancel: () => void;
}) {
	const { error, busy, submit } = useApiForm(
		(form) => {
			const secret = String(form.get("secret") ?? "");
			return api.post<{ data: CreatedWebhookEndpoint }>("/v1/webhook-endpoints", {
				url: String(form.get("url") ?? ""),
				events: form.getAll("events").map(String),
				...(secret ? { secret } : {}),
			});
		},
		(answer) => props.onCreated(answer.data),
	);
	return (
		<form class="card form" aria-label="Add a webhook endpoint" onSubmit={submit}>
			<h2>Add a webhook endpoint</h2>
			<div class="form-row top">
				<Field
					label="URL"
					name="url"
					type="url"
					required
					placeholder="https://example.com/as2kit-events"
					error={errorUnder(error, "url")}
					hint="Must be https://. Each delivery is an HTTP POST signed in the x-signature header."
				/>
				<Field
					label="Signing secret"
					name="secret"
					type="password"
					autoComplete="off"
					error={errorUnder(error, "secret")}
					hint="Optional, at least 16 characters. Leave empty and as2kit generates one."
				/>
			</div>
			<CheckboxGroup
				legend="Events"
				name="events"
				options={EVENT_CHOICES}
				checked={["message.*"]}
				error={errorUnder(error, "events")}
			/>
			<FormError error={error} fields={fieldsShownUnder(error, FIELDS)} />
			<div class="page-actions">
				<button type="submit" class="button primary" disabled={busy}>
					Add endpoint
				</button>
				<button type="button" class="button ghost" onClick={props.onCancel}>
					Cancel
				</button>
			</div>
		</form>
	);
}
