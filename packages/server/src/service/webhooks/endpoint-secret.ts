import type { WebhookEndpointRecord } from "@as2kit/core/store";
import { open, seal } from "../secrets/sealed.ts";
import { deriveKey, generateToken } from "../secrets/tokens.ts";

export const WEBHOOK_SECRET_PREFIX = "whsec_";

/** The key that seals endpoint secrets: they must be stored recoverably, to sign with them. */
export function webhookSecretKey(masterKey: Uint8Array): Uint8Array {
	return deriveKey(masterKey, "webhook endpoint secret");
}

export function generateWebhookSecret(): string {
	return generateToken(WEBHOOK_SECRET_PREFIX);
}

// Bound to the endpoint id, so a sealed secret copied to another row does not open.
const context = (endpointId: string) => `webhook-endpoint:${endpointId}`;

export function sealWebhookSecret(key: Uint8Array, endpointId: string, secret: string): string {
	return seal(key, secret, context(endpointId));
}

export function openWebhookSecret(key: Uint8Array, endpoint: WebhookEndpointRecord): string {
	return open(key, endpoint.secretSealed, context(endpoint.id)).toString("utf8");
}
