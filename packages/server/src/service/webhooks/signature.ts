import { createHmac } from "node:crypto";

/**
 * The headers of one delivery attempt (interface spec, Events: Signature):
 * - `x-signature`: hex HMAC-SHA256 of the raw body, keyed with the endpoint secret's UTF-8
 *   bytes. Receivers answer a mismatch with 401.
 * - `x-webhook-id`: the delivery id, the same on every attempt: receivers de-duplicate by it.
 * - `x-webhook-timestamp`: Unix seconds of this attempt.
 * - `x-webhook-signature`: `v1=` + hex HMAC-SHA256 of `<id>.<timestamp>.<body>`. The body
 *   signature alone cannot date a request, so a captured delivery could be replayed forever;
 *   this one binds id and time, so receivers can refuse stale timestamps and reused ids.
 */
export function webhookHeaders(input: {
	deliveryId: string;
	kind: string;
	body: string;
	secret: string;
	at: Date;
}): Record<string, string> {
	const timestamp = String(Math.floor(input.at.getTime() / 1000));
	return {
		"content-type": "application/json",
		"user-agent": "as2kit-webhooks/1",
		"x-webhook-event": input.kind,
		"x-webhook-id": input.deliveryId,
		"x-webhook-timestamp": timestamp,
		"x-signature": hmacHex(input.secret, input.body),
		"x-webhook-signature": `v1=${hmacHex(input.secret, `${input.deliveryId}.${timestamp}.${input.body}`)}`,
	};
}

export function hmacHex(secret: string, content: string): string {
	return createHmac("sha256", secret).update(content).digest("hex");
}
