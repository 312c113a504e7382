import type { WebhookEndpointRecord } from "@as2kit/core/store";
import { formatInstant } from "../views/instant.ts";

/** An endpoint whose every attempt has failed for this long is deactivated. */
export const DEACTIVATE_AFTER_FAILING_MS = 3 * 24 * 3600 * 1000;

/**
 * Whether a failed attempt at `at` ends three days of continuous failure. Judged at attempt
 * time rather than by a periodic scan: "continuously" needs a failure at the end of the three
 * days too, and an endpoint that nobody sent to meanwhile has not been failing.
 */
export function shouldDeactivate(endpoint: WebhookEndpointRecord, at: Date): boolean {
	return (
		endpoint.active &&
		endpoint.failingSince !== null &&
		at.getTime() - endpoint.failingSince.getTime() >= DEACTIVATE_AFTER_FAILING_MS
	);
}

export function deactivationReason(endpoint: WebhookEndpointRecord, lastError: string | null): string {
	const since = endpoint.failingSince ? formatInstant(endpoint.failingSince) : "unknown";
	return `deactivated after failing continuously for 3 days (every attempt since ${since} failed; last error: ${lastError ?? "unknown"}). Fix the receiver, then PATCH active: true.`;
}
