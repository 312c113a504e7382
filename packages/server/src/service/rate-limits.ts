import { As2Error } from "@as2kit/core";
import type { PlanName } from "@as2kit/core/store";
import type { ServiceDeps } from "./deps.ts";
import { planOf } from "./plans.ts";
import { addSeconds } from "./time.ts";

/** A concurrency slot is leased so that a crashed instance cannot hold it forever. */
const SLOT_LEASE_SECONDS = 300;

export interface Admission {
	/** `X-RateLimit-*` values for the response; null for an unlimited plan. */
	headers: { limit: number; remaining: number; reset: number } | null;
	/** Frees the concurrency slot; call once the request is answered. */
	release(): Promise<void>;
}

/**
 * Per-account rate limits (decisions.md, Rate limits): a token bucket holding the plan's
 * burst, refilled at requests per minute / 60 per second, plus at most the plan's concurrent
 * requests in flight. Both live in storage, so every instance shares one budget.
 */
export function createRateLimiter({ store, now, config }: ServiceDeps) {
	return async function admit(key: string, planName: PlanName): Promise<Admission> {
		const plan = planOf(planName, config.enterpriseLimits);
		const at = now();
		let headers: Admission["headers"] = null;
		if (plan.requestsPerMinute !== null && plan.burst !== null) {
			const taken = await store.rateLimits.take({
				key: `rate:${key}`,
				capacity: plan.burst,
				refillPerSecond: plan.requestsPerMinute / 60,
				now: at,
			});
			headers = {
				limit: plan.requestsPerMinute,
				remaining: taken.remaining,
				reset: Math.ceil(taken.resetAt.getTime() / 1000),
			};
			if (!taken.allowed) {
				// The bucket is empty: the burst is spent, and it refills at the per-minute rate.
				throw new As2Error(
					"rate_limit_exceeded",
					`burst limit of ${plan.burst} requests exceeded (the plan allows bursts of ${plan.burst}, refilled at ${plan.requestsPerMinute} requests per minute): retry in ${taken.retryAfterSeconds} s`,
					{
						details: { retry_after_seconds: taken.retryAfterSeconds, rate_limit: headers },
					},
				);
			}
		}
		if (plan.concurrent === null) return { headers, release: async () => {} };
		const slot = await store.rateLimits.acquireSlot({
			key: `concurrency:${key}`,
			limit: plan.concurrent,
			now: at,
			expiresAt: addSeconds(at, SLOT_LEASE_SECONDS),
		});
		if (!slot) {
			throw new As2Error("concurrency_limit_exceeded", `at most ${plan.concurrent} concurrent requests`, {
				details: { retry_after_seconds: 1, rate_limit: headers },
			});
		}
		return { headers, release: () => store.rateLimits.releaseSlot(slot) };
	};
}
