/**
 * Verifying an as2kit webhook delivery: copy this file into your receiver. Node built-ins only.
 *
 * Every delivery is a POST with a JSON body `{ event, data, timestamp, api_version }` and:
 * - `x-signature`: hex HMAC-SHA256 of the raw body, keyed with your endpoint's secret;
 * - `x-webhook-id`: the delivery id, the same on every retry: de-duplicate by it;
 * - `x-webhook-timestamp`: Unix seconds of this attempt;
 * - `x-webhook-signature`: `v1=` + hex HMAC-SHA256 of `<id>.<timestamp>.<raw body>`.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export interface WebhookEvent {
	/** The delivery id (`x-webhook-id`). */
	id: string;
	event: string;
	data: Record<string, unknown>;
	/** When the event occurred. */
	timestamp: string;
	api_version: string;
}

export class WebhookVerificationError extends Error {}

export interface VerifyOptions {
	/** The secret shown once when the endpoint was created (`whsec_…`). */
	secret: string;
	/** The raw request body, exactly as received: re-serialized JSON does not verify. */
	body: string;
	headers: Record<string, string | string[] | undefined>;
	/** Deliveries older than this are refused as replays; 5 minutes by default. */
	toleranceSeconds?: number;
	now?: Date;
}

/** Checks both signatures and the timestamp, then parses the event; throws WebhookVerificationError. */
export function verifyWebhook(options: VerifyOptions): WebhookEvent {
	const header = (name: string) => {
		const value = options.headers[name];
		return Array.isArray(value) ? value[0] : value;
	};
	const id = header("x-webhook-id");
	const timestamp = header("x-webhook-timestamp");
	if (!id || !timestamp) throw new WebhookVerificationError("missing x-webhook-id or x-webhook-timestamp");
	if (!matches(header("x-signature"), hmac(options.secret, options.body))) {
		throw new WebhookVerificationError("x-signature does not match the body");
	}
	const signed = header("x-webhook-signature")?.replace(/^v1=/, "");
	if (!matches(signed, hmac(options.secret, `${id}.${timestamp}.${options.body}`))) {
		throw new WebhookVerificationError("x-webhook-signature does not match id, timestamp and body");
	}
	const age = (options.now ?? new Date()).getTime() / 1000 - Number(timestamp);
	if (!Number.isFinite(age) || Math.abs(age) > (options.toleranceSeconds ?? 300)) {
		throw new WebhookVerificationError("x-webhook-timestamp is too far from now: a replay?");
	}
	const parsed = JSON.parse(options.body) as Omit<WebhookEvent, "id">;
	return { id, ...parsed };
}

function hmac(secret: string, content: string): string {
	return createHmac("sha256", secret).update(content).digest("hex");
}

/** Constant-time comparison of hex digests, so a timing side channel reveals nothing. */
function matches(received: string | undefined, expected: string): boolean {
	if (!received || received.length !== expected.length) return false;
	return timingSafeEqual(Buffer.from(received), Buffer.from(expected));
}
