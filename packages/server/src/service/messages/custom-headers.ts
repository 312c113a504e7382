import { fieldError } from "../validation-error.ts";

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the AS2 message itself owns (RFC 4130 §6) or HTTP framing: not settable per message. */
const RESERVED =
	/^(content-(type|length|transfer-encoding|disposition)|transfer-encoding|host|connection|message-id|mime-version|as2-(from|to|version)|disposition-notification-(to|options)|receipt-delivery-option|date|ediint-features|authorization)$/i;

/** Custom AS2 headers of a message (POST /v1/messages `headers`): sent as given, but never the engine's own. */
export function checkCustomHeaders(headers: Record<string, string>): Record<string, string> {
	const entries = Object.entries(headers);
	if (entries.length > 50) throw fieldError("headers", "may hold at most 50 headers");
	for (const [name, value] of entries) {
		if (!TOKEN.test(name)) throw fieldError("headers", `${name} is not a valid header name`);
		if (RESERVED.test(name)) throw fieldError("headers", `${name} is set by the AS2 engine`);
		if (typeof value !== "string" || /[\r\n\0]/.test(value) || value.length > 4096) {
			throw fieldError("headers", `${name} has an invalid value`);
		}
	}
	return headers;
}
