/**
 * The form of an endpoint: `POST /v1/webhook-endpoints` (URL, event kinds, an optional secret
 * of one's own) or, given the endpoint, `PATCH` of its URL and event kinds. Kinds the endpoint
 * holds that the form does not list (set through the API) are offered too, so an edit keeps them.
 */
import { api } from "../../api.ts";
import { CheckboxGroup } from "../../components/CheckboxGroup.tsx";
import { Field } from "../../components/Field.tsx";
import { FormButtons } from "../../components/FormButtons.tsx";
import { FormError } from "../../components/FormError.tsx";
import { errorUnder, fieldsShownUnder } from "../../components/field-errors.ts";
import { useApiForm } from "../../use-api-form.ts";
import { EVENT_CHOICES, type WebhookEndpoint } from "./webhook.ts";

const FIELDS = ["url", "events", "secret"];

function eventChoices(endpoint: WebhookEndpoint | undefined): [string, string][] {
	const extra = (endpoint?.events ?? []).filter((e) => !EVENT_CHOICES.some(([value]) => value === e));
	return [...EVENT_CHOICES, ...extra.map((e): [string, string] => [e, e])];
}

export function WebhookForm<T extends WebhookEndpoint>(props: {
	/** The endpoint to edit; without it the form creates one. */
	endpoint?: WebhookEndpoint;
	onDone: (endpoint: T) => void;
	onCancel: () => void;
}) {
	const editing = props.endpoint;
	const title = editing ? "Edit the endpoint" : "Add a webhook endpoint";
	const { error, busy, submit } = useApiForm(
		(form) => {
			const body = { url: String(form.get("url") ?? ""), events: form.getAll("events").map(String) };
			if (editing) return api.patch<{ data: T }>(`/v1/webhook-endpoints/${encodeURIComponent(editing.id)}`, body);
			const secret = String(form.get("secret") ?? "");
			return api.post<{ data: T }>("/v1/webhook-endpoints", { ...body, ...(secret ? { secret } : {}) });
		},
		(answer) => props.onDone(answer.data),
	);
	return (
		<form class="card form" aria-label={title} onSubmit={submit}>
			<h2>{title}</h2>
			<div class="form-row top">
				<Field
					label="URL"
					name="url"
					type="url"
					required
					defaultValue={editing?.url}
					placeholder="https://example.com/as2kit-events"
					error={errorUnder(error, "url")}
					hint="Must be https://. Each delivery is an HTTP POST signed in the x-signature header."
				/>
				{editing ? null : (
					<Field
						label="Signing secret"
						name="secret"
						type="password"
						autoComplete="off"
						error={errorUnder(error, "secret")}
						hint="Optional, at least 16 characters. Leave empty and as2kit generates one."
					/>
				)}
			</div>
			<CheckboxGroup
				legend="Events"
				name="events"
				options={eventChoices(editing)}
				checked={editing?.events ?? ["message.*"]}
				error={errorUnder(error, "events")}
			/>
			<FormError error={error} fields={fieldsShownUnder(error, FIELDS)} />
			<FormButtons submitLabel={editing ? "Save changes" : "Add endpoint"} busy={busy} onCancel={props.onCancel} />
		</form>
	);
}
