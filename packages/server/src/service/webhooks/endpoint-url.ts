import { checkTargetUrl, type TargetPolicy } from "../transport/target-url.ts";

/**
 * Checks a webhook URL (decisions.md, Insecure URLs; README, AS2_ALLOW_HTTP and
 * AS2_ALLOW_PRIVATE_TARGETS) with the rule every outbound URL follows (transport/target-url.ts).
 */
export function checkEndpointUrl(raw: string, policy: TargetPolicy): string {
	return checkTargetUrl(raw, policy, {
		field: "url",
		credentialsHint: "receivers authenticate deliveries by their x-signature",
	});
}
