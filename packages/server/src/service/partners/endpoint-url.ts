import { checkTargetUrl, type TargetPolicy } from "../transport/target-url.ts";

/**
 * A partner's AS2 URL (decisions.md, Insecure URLs; README, AS2_ALLOW_HTTP and
 * AS2_ALLOW_PRIVATE_TARGETS), with the rule every outbound URL follows
 * (transport/target-url.ts). Credentials belong in the partner's HTTP auth settings, where
 * they are sealed.
 */
export function checkPartnerUrl(value: string, policy: TargetPolicy): string {
	return checkTargetUrl(value, policy, { field: "url", credentialsHint: "use the HTTP auth settings" });
}

/**
 * The partner's `mdn.url`: the Receipt-Delivery-Option we ask the partner to send its async
 * MDNs to, that is, an address of ours that the server never connects to. So only its form
 * and scheme are checked; a private address there is the deployment's own business.
 */
export function checkReceiptUrl(value: string, policy: TargetPolicy): string {
	return checkTargetUrl(
		value,
		{ allowHttp: policy.allowHttp, allowPrivateTargets: true },
		{ field: "mdn.url", credentialsHint: "use the HTTP auth settings" },
	);
}
