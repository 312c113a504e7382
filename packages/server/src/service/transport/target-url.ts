import { fieldError } from "../validation-error.ts";
import { namesPrivateHost, PRIVATE_TARGET_REASON } from "./target-guard.ts";

/** The deployment's rules for URLs the server will connect to (README, configuration). */
export interface TargetPolicy {
	/** AS2_ALLOW_HTTP=1: `http://` as well as `https://`. */
	allowHttp: boolean;
	/** AS2_ALLOW_PRIVATE_TARGETS=1: loopback, private and link-local hosts (on-premise, tests). */
	allowPrivateTargets: boolean;
}

const MAX_URL_LENGTH = 2048;

/**
 * Checks a URL the server will connect to (decisions.md, Insecure URLs): `https://` only,
 * `http://` too with AS2_ALLOW_HTTP; no credentials in it (`credentialsHint` says where they
 * belong); and, unless AS2_ALLOW_PRIVATE_TARGETS, no host that is literally a loopback,
 * private or link-local address or `localhost` (a name is checked again, resolved, at every
 * connection: DNS may change). Any failure is 422 INVALID_ENDPOINT_URL on `field`.
 */
export function checkTargetUrl(
	raw: string,
	policy: TargetPolicy,
	options: { field: string; credentialsHint: string },
): string {
	const invalid = (message: string) => fieldError(options.field, message, "INVALID_ENDPOINT_URL");
	const value = raw.trim();
	if (value.length > MAX_URL_LENGTH) throw invalid(`must have at most ${MAX_URL_LENGTH} characters`);
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		throw invalid("must be a valid URL");
	}
	const schemes = policy.allowHttp ? ["https:", "http:"] : ["https:"];
	if (!schemes.includes(url.protocol)) {
		throw invalid(policy.allowHttp ? "must be an https:// or http:// URL" : "must be an https:// URL");
	}
	if (url.username || url.password) throw invalid(`must not contain credentials; ${options.credentialsHint}`);
	if (!url.hostname) throw invalid("has no host");
	if (!policy.allowPrivateTargets && namesPrivateHost(url)) throw invalid(`must not point to ${PRIVATE_TARGET_REASON}`);
	return value;
}
