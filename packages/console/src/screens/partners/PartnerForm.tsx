/**
 * Create or edit a partner (tenant, master, or a tenant's override of an inherited one): the
 * connection, security, MDN, compatibility profile and its switches, and HTTP authentication.
 * The API's 422 errors appear next to the field they name (`compatibility.profile`, …).
 */
import type { ComponentChildren } from "preact";
import { ApiError } from "../../api.ts";
import { Field } from "../../components/Field.tsx";
import { FormButtons } from "../../components/FormButtons.tsx";
import { FormError } from "../../components/FormError.tsx";
import { useApiForm } from "../../use-api-form.ts";
import { Choice, FieldGroup, Toggle } from "./form-controls.tsx";
import {
	ENCRYPT_ALGORITHMS,
	type FormValues,
	partnerBody,
	readForm,
	SIGN_ALGORITHMS,
	SWITCHES,
} from "./partner-form-values.ts";
import type { CompatibilityProfile } from "./partner-types.ts";
import { useCompatibilityProfiles } from "./use-compatibility-profiles.ts";

/** The API's field paths this form shows next to a control. */
const SHOWN_FIELDS = [
	"name",
	"as2_id",
	"url",
	"sign",
	"encrypt",
	"compress",
	"mdn_mode",
	"sign_algorithm",
	"encrypt_algorithm",
	"compatibility.profile",
	...SWITCHES.map(({ name }) => `compatibility.${name}`),
	"http.auth.username",
	"http.auth.password",
];

export function PartnerForm<T>(props: {
	/** null: a new partner. */
	initial: FormValues | null;
	defaults: FormValues;
	submitLabel: string;
	send: (body: Record<string, unknown>) => Promise<T>;
	onDone: (result: T) => void;
	onCancel?: () => void;
	/** Per field, what to say about where its value comes from (inherited or overridden). */
	origin?: (field: string) => ComponentChildren;
	/** Groups whose current values are not known here (a master partner's): left out, with why. */
	unknownGroups?: { compatibility?: string; http?: string };
	/** When nothing changed (an edit): say so instead of sending an empty PATCH. */
	noChangeMessage?: string;
}) {
	const profiles = useCompatibilityProfiles();
	const start = props.initial ?? props.defaults;
	const form = useApiForm(async (data) => {
		const body = partnerBody(readForm(data), props.initial);
		if (props.initial && Object.keys(body).length === 0) {
			throw new ApiError(0, "NO_CHANGE", props.noChangeMessage ?? "Nothing changed: edit a field first.");
		}
		return props.send(body);
	}, props.onDone);
	const error = (name: string) => form.error?.field(name);
	const origin = props.origin ?? (() => undefined);
	const hint = (field: string, text?: ComponentChildren) => {
		const from = origin(field);
		if (!from) return text;
		return text ? (
			<>
				{from} {text}
			</>
		) : (
			from
		);
	};
	const bool = (value: string) => (value === "true" ? "on" : value === "false" ? "off" : value);
	// With no profile, the switches follow `default` (strict RFC).
	const profileSwitches = profiles.find((p) => p.name === (start.profile || "default"))?.switches as
		| Record<string, unknown>
		| undefined;
	return (
		<form class="form" onSubmit={form.submit} noValidate>
			<FieldGroup legend="Connection">
				<Field
					label="Name"
					name="name"
					defaultValue={start.name}
					required
					maxLength={255}
					error={error("name")}
					hint={hint("name")}
				/>
				<Field
					label="AS2 ID"
					name="as2_id"
					defaultValue={start.as2_id}
					required
					disabled={props.initial !== null}
					error={error("as2_id")}
					hint={
						props.initial ? "Fixed once created: messages and MDNs name it." : "Letters, digits, - and _; no spaces."
					}
				/>
				<Field
					label="URL"
					name="url"
					type="url"
					defaultValue={start.url}
					required
					placeholder="https://as2.partner.example/receive"
					error={error("url")}
					hint={hint("url", "Where the partner receives AS2 messages (HTTPS).")}
				/>
			</FieldGroup>
			<FieldGroup legend="Security" lead="What messages to this partner get, and what the partner must send.">
				<div class="toggle-row">
					<Toggle label="Sign" name="sign" initial={start.sign === "true"} error={error("sign")} hint={hint("sign")} />
					<Toggle
						label="Encrypt"
						name="encrypt"
						initial={start.encrypt === "true"}
						error={error("encrypt")}
						hint={hint("encrypt")}
					/>
					<Toggle
						label="Compress"
						name="compress"
						initial={start.compress === "true"}
						error={error("compress")}
						hint={hint("compress")}
					/>
				</div>
				<div class="form-row span-all">
					<Choice
						label="Signing algorithm"
						name="sign_algorithm"
						initial={start.sign_algorithm ?? ""}
						error={error("sign_algorithm")}
						hint={hint("sign_algorithm")}
						options={[["", "Default (SHA256withRSA)"], ...SIGN_ALGORITHMS.map((a): [string, string] => [a, a])]}
					/>
					<Choice
						label="Encryption algorithm"
						name="encrypt_algorithm"
						initial={start.encrypt_algorithm ?? ""}
						error={error("encrypt_algorithm")}
						hint={hint("encrypt_algorithm")}
						options={[["", "Default (AES256_CBC)"], ...ENCRYPT_ALGORITHMS.map((a): [string, string] => [a, a])]}
					/>
				</div>
			</FieldGroup>
			<FieldGroup legend="MDN" lead="The receipt the partner returns (RFC 4130 §7).">
				<Choice
					label="MDN mode"
					name="mdn_mode"
					initial={start.mdn_mode ?? "async"}
					error={error("mdn_mode")}
					hint={hint("mdn_mode")}
					options={[
						["sync", "Synchronous: in the HTTP response"],
						["async", "Asynchronous: posted back later"],
						["none", "None"],
					]}
				/>
			</FieldGroup>
			{props.unknownGroups?.compatibility ? (
				<FieldGroup legend="Compatibility" lead={props.unknownGroups.compatibility} />
			) : (
				<FieldGroup
					legend="Compatibility"
					lead="A profile adapts messages to a partner's AS2 product; a switch set here wins over the profile."
				>
					<Choice
						label="Compatibility profile"
						name="profile"
						initial={start.profile ?? ""}
						error={error("compatibility.profile")}
						hint={hint("compatibility", profiles.find((p) => p.name === start.profile)?.description)}
						options={[["", "None (strict RFC)"], ...profileOptions(profiles, start.profile)]}
					/>
					{SWITCHES.map((s) => (
						<Choice
							key={s.name}
							label={s.label}
							name={s.name}
							initial={start[s.name] ?? ""}
							error={error(`compatibility.${s.name}`)}
							options={[
								["", profileSwitches ? `Profile (${bool(String(profileSwitches[s.name]))})` : "Profile"],
								...s.values.map((value): [string, string] => [value, bool(value)]),
							]}
						/>
					))}
				</FieldGroup>
			)}
			{props.unknownGroups?.http ? (
				<FieldGroup legend="HTTP authentication" lead={props.unknownGroups.http} />
			) : (
				<FieldGroup
					legend="HTTP authentication"
					lead="Basic credentials the partner's server asks for; leave the user name empty for none."
				>
					<Field
						label="User name"
						name="auth_username"
						autoComplete="off"
						defaultValue={start.auth_username ?? ""}
						error={error("http.auth.username")}
						hint={hint("http")}
					/>
					<Field
						label="Password"
						name="auth_password"
						type="password"
						autoComplete="new-password"
						error={error("http.auth.password")}
						hint={
							props.initial?.auth_username ? "Stored; type it again to change the user name or password." : undefined
						}
					/>
				</FieldGroup>
			)}
			<FormError error={form.error} fields={SHOWN_FIELDS} />
			<FormButtons submitLabel={props.submitLabel} busy={form.busy} onCancel={props.onCancel} />
		</form>
	);
}

/**
 * The profile picker's choices. Until the list arrives, the partner's own profile is one of them:
 * else the picker would hold "None", and saving another field meanwhile (a slow network) would
 * send that as a change, overriding an inherited profile with none.
 */
function profileOptions(profiles: CompatibilityProfile[], current: string | undefined): [string, string][] {
	const names = profiles.map((p) => p.name);
	if (current && !names.includes(current)) names.push(current);
	return names.map((name) => [name, name]);
}
