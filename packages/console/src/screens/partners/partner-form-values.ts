/**
 * The partner form's values as strings (what the controls hold) and the API body they make.
 * An edit sends only what changed: on an inherited partner every field sent becomes a
 * tenant override (decisions.md, Inherited partners), so untouched fields must stay inherited.
 */
import type { Partner, PartnerConfiguration, PartnerDetail } from "./partner-types.ts";

export const SIGN_ALGORITHMS = ["SHA1withRSA", "SHA256withRSA", "SHA384withRSA", "SHA512withRSA"];
/** The spec's CBC four, and AES-GCM (RFC 5084) for partners that read it. */
export const ENCRYPT_ALGORITHMS = ["3DES", "AES128_CBC", "AES192_CBC", "AES256_CBC", "AES128_GCM", "AES256_GCM"];
export const KEY_ENCRYPTIONS = ["rsa", "oaep", "oaep-sha256", "oaep-sha384", "oaep-sha512"];

/** The compatibility switches: "" follows the profile (null in the API), else a value of its own. */
export const SWITCHES: { name: string; label: string; values: string[] }[] = [
	{ name: "signed_attributes", label: "Signed attributes", values: ["true", "false"] },
	{ name: "algorithm_protection", label: "Algorithm protection (RFC 6211)", values: ["true", "false"] },
	{ name: "transfer_encoding", label: "Transfer encoding", values: ["binary", "base64"] },
	{ name: "compress_order", label: "Compress", values: ["before-sign", "after-sign"] },
	{ name: "key_encryption", label: "Key encryption", values: KEY_ENCRYPTIONS },
	{ name: "chunked", label: "Chunked transfer", values: ["true", "false"] },
];

const FLAGS = ["sign", "encrypt", "compress"] as const;
const TEXTS = ["name", "as2_id", "url", "mdn_mode", "sign_algorithm", "encrypt_algorithm"] as const;

export type FormValues = Record<string, string>;

export function valuesOf(
	partner: Partner & Partial<Pick<PartnerDetail, "compatibility">>,
	configuration: PartnerConfiguration | null,
): FormValues {
	const values: FormValues = {
		name: partner.name,
		as2_id: partner.as2_id,
		url: partner.url,
		mdn_mode: partner.mdn_mode,
		sign_algorithm: partner.sign_algorithm ?? "",
		encrypt_algorithm: partner.encrypt_algorithm ?? "",
		profile: partner.compatibility?.profile ?? "",
		auth_username: configuration?.http.auth?.username ?? "",
		auth_password: "",
	};
	for (const flag of FLAGS) values[flag] = String(partner[flag]);
	const own = (partner.compatibility ?? {}) as Record<string, unknown>;
	for (const { name } of SWITCHES)
		values[name] = own[name] === undefined || own[name] === null ? "" : String(own[name]);
	return values;
}

export const NEW_PARTNER: FormValues = {
	name: "",
	as2_id: "",
	url: "",
	mdn_mode: "async",
	sign_algorithm: "",
	encrypt_algorithm: "",
	sign: "false",
	encrypt: "false",
	compress: "false",
	profile: "",
	auth_username: "",
	auth_password: "",
	...Object.fromEntries(SWITCHES.map(({ name }) => [name, ""])),
};

export function readForm(form: FormData): FormValues {
	const values: FormValues = {};
	for (const [name, value] of form) if (typeof value === "string") values[name] = value.trim();
	for (const flag of FLAGS) values[flag] = String(form.get(flag) === "on");
	return values;
}

const switchValue = (value: string): string | boolean | null =>
	value === "" ? null : value === "true" ? true : value === "false" ? false : value;

/**
 * The POST (no `initial`) or PATCH body: fields whose value differs from `initial`. A cleared
 * algorithm, profile or switch is sent as null (back to the default or the profile).
 */
export function partnerBody(values: FormValues, initial: FormValues | null): Record<string, unknown> {
	// A group the form left out sends nothing: absent is not "cleared".
	const changed = (name: string) => name in values && (initial ? values[name] !== initial[name] : values[name] !== "");
	const body: Record<string, unknown> = {};
	for (const name of TEXTS) {
		if (name === "as2_id" && initial) continue; // the AS2 id is fixed once messages name it
		if (changed(name)) body[name] = values[name] === "" && name.endsWith("_algorithm") ? null : values[name];
	}
	for (const flag of FLAGS) if (values[flag] !== (initial ?? NEW_PARTNER)[flag]) body[flag] = values[flag] === "true";
	const compatibility: Record<string, unknown> = {};
	if (changed("profile")) compatibility.profile = values.profile || null;
	for (const { name } of SWITCHES) if (changed(name)) compatibility[name] = switchValue(values[name] ?? "");
	if (Object.keys(compatibility).length > 0) body.compatibility = compatibility;
	const username = values.auth_username;
	if (username === undefined) return body;
	if (username === "" && initial?.auth_username) body.http = { auth: null };
	else if (username !== "" && (changed("auth_username") || values.auth_password)) {
		body.http = { auth: { username, password: values.auth_password ?? "" } };
	}
	return body;
}
