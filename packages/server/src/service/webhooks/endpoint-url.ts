import { fieldError } from "../validation-error.ts";
import { ipLiteral, isForbiddenAddress, isLocalName } from "./target-address.ts";

const MAX_URL_LENGTH = 2048;

/**
 * Checks a webhook URL (decisions.md, Insecure URLs): `https://` only, `http://` too when
 * AS2_ALLOW_HTTP=1; malformed URLs and other schemes are 422 INVALID_ENDPOINT_URL. Without
 * AS2_ALLOW_HTTP, loopback, private and link-local hosts are refused here when the URL names
 * them literally; a name is resolved and checked again at every delivery (DNS may change).
 */
export function checkEndpointUrl(raw: string, allowHttp: boolean): string {
	const invalid = (message: string) => fieldError("url", message, "INVALID_ENDPOINT_URL");
	if (raw.length > MAX_URL_LENGTH) throw invalid(`must have at most ${MAX_URL_LENGTH} characters`);
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		throw invalid("must be a valid URL");
	}
	const schemes = allowHttp ? ["https:", "http:"] : ["https:"];
	if (!schemes.includes(url.protocol)) {
		throw invalid(allowHttp ? "must be an https:// or http:// URL" : "must be an https:// URL");
	}
	if (url.username || url.password) {
		throw invalid("must not contain credentials; receivers authenticate deliveries by their x-signature");
	}
	if (!allowHttp) {
		const ip = ipLiteral(url.hostname);
		if ((ip && isForbiddenAddress(ip)) || isLocalName(url.hostname)) {
			throw invalid("must not point to a loopback, private or link-local address");
		}
	}
	return raw;
}
