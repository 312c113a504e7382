import { fieldError } from "../validation-error.ts";

/**
 * Partner and webhook URLs (decisions.md, Insecure URLs): `https://` only, `http://` too when
 * AS2_ALLOW_HTTP=1; a malformed URL, another scheme, or credentials in the URL (they belong in
 * the partner's HTTP auth settings, where they are sealed) → 422 INVALID_ENDPOINT_URL.
 */
export function checkEndpointUrl(value: string, allowHttp: boolean, field = "url"): string {
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		throw fieldError(field, "is not a valid URL", "INVALID_ENDPOINT_URL");
	}
	const schemes = allowHttp ? ["https:", "http:"] : ["https:"];
	if (!schemes.includes(url.protocol)) {
		throw fieldError(field, allowHttp ? "must be an http(s) URL" : "must be an https URL", "INVALID_ENDPOINT_URL");
	}
	if (url.username || url.password) {
		throw fieldError(field, "must not carry credentials; use the HTTP auth settings", "INVALID_ENDPOINT_URL");
	}
	if (!url.hostname) throw fieldError(field, "has no host", "INVALID_ENDPOINT_URL");
	return value.trim();
}
