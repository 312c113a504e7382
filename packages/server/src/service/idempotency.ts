import { setTimeout as sleep } from "node:timers/promises";
import { As2Error } from "@as2kit/core";
import type { ServiceDeps } from "./deps.ts";
import { addSeconds } from "./time.ts";
import { fieldError } from "./validation-error.ts";

/** Keys are kept 24 hours (interface spec, Idempotency). */
export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 3600;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const POLL_MS = 25;

export type IdempotencyDecision =
	| { kind: "proceed"; finish(response: { status: number; body: string }): Promise<void>; abandon(): Promise<void> }
	| { kind: "replay"; status: number; body: string };

/**
 * Idempotency-Key handling (interface spec, Idempotency): the first request with a key runs;
 * a repeat gets the original status and body; a repeat while the first still runs waits for
 * it, so two concurrent requests create one resource; the same key with another request is
 * a 422. Responses of 500 and above are not kept, so the client may retry them.
 */
export function createIdempotency({ store, now, config }: ServiceDeps) {
	return async function beginIdempotent(scope: string, key: string, fingerprint: string): Promise<IdempotencyDecision> {
		if (!UUID_V4.test(key)) throw fieldError("Idempotency-Key", "must be a UUID version 4");
		const deadline = performance.now() + config.idempotencyWaitMs;
		for (;;) {
			const at = now();
			const outcome = await store.idempotency.begin(
				{
					scope,
					key,
					fingerprint,
					state: "pending",
					responseStatus: null,
					responseBody: null,
					createdAt: at,
					lockedUntil: addSeconds(at, config.idempotencyLockSeconds),
					expiresAt: addSeconds(at, IDEMPOTENCY_RETENTION_SECONDS),
				},
				at,
			);
			const { record } = outcome;
			if (outcome.outcome === "started") {
				return {
					kind: "proceed",
					finish: (response) =>
						response.status >= 500
							? store.idempotency.release(scope, key)
							: store.idempotency.complete(scope, key, response),
					abandon: () => store.idempotency.release(scope, key),
				};
			}
			if (record.fingerprint !== fingerprint) {
				throw fieldError("Idempotency-Key", "was already used with a different request");
			}
			if (record.state === "completed")
				return { kind: "replay", status: record.responseStatus!, body: record.responseBody! };
			if (performance.now() >= deadline) {
				throw new As2Error("IDEMPOTENCY_IN_PROGRESS", "a request with this Idempotency-Key is still running", {
					details: { retry_after_seconds: 1 },
				});
			}
			await sleep(POLL_MS);
		}
	};
}
