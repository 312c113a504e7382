/** Result of taking tokens from a bucket (decisions.md, Rate limits). */
export interface TakeResult {
	/** At least one token was taken. */
	allowed: boolean;
	/** Tokens taken: 0 when refused, up to `BucketOptions.upTo`. */
	taken: number;
	/** Whole tokens left after this request. */
	remaining: number;
	/** When the bucket is full again. */
	resetAt: Date;
	/** When denied: seconds until one token is available. */
	retryAfterSeconds: number;
}

export interface BucketOptions {
	key: string;
	capacity: number;
	refillPerSecond: number;
	now: Date;
	/** Take up to this many whole tokens, as many as there are (default 1). */
	upTo?: number;
}

/**
 * The token bucket's arithmetic, for the stores: refill `bucket` (null: a new, full one) for
 * the time elapsed, then take up to `upTo` whole tokens. `tokens` and `updatedAt` are the new
 * state to store. Concurrent requests reach the bucket in another order than their clocks
 * read: the bucket's time never goes back (a take "earlier" than the last refill refills
 * nothing), or the same seconds would be refilled twice and more admitted than the rate.
 */
export function takeFromBucket(
	bucket: { tokens: number; updatedAt: Date } | null,
	{ capacity, refillPerSecond, now, upTo = 1 }: BucketOptions,
): TakeResult & { tokens: number; updatedAt: Date } {
	const elapsed = bucket ? Math.max(0, now.getTime() - bucket.updatedAt.getTime()) / 1000 : 0;
	const available = bucket ? Math.min(capacity, bucket.tokens + elapsed * refillPerSecond) : capacity;
	const taken = Math.max(0, Math.min(upTo, Math.floor(available)));
	const tokens = available - taken;
	return {
		tokens,
		updatedAt: bucket && bucket.updatedAt > now ? bucket.updatedAt : now,
		allowed: taken >= 1,
		taken,
		remaining: Math.floor(tokens),
		resetAt: new Date(now.getTime() + Math.ceil(((capacity - tokens) / refillPerSecond) * 1000)),
		retryAfterSeconds: taken >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) / refillPerSecond)),
	};
}

export interface RateLimitStore {
	/** Refills the bucket for the time elapsed, then takes up to `upTo` tokens (default one). Atomic. */
	take(options: BucketOptions): Promise<TakeResult>;
	/**
	 * Takes one of `limit` concurrency slots for `key`, leased until `expiresAt` so that a
	 * crashed instance cannot leak them; null when all are taken.
	 */
	acquireSlot(options: { key: string; limit: number; now: Date; expiresAt: Date }): Promise<string | null>;
	releaseSlot(slotId: string): Promise<void>;
}

/** Counters per account and calendar month (decisions.md, Usage and billing events). */
export interface UsageStore {
	/** Adds `by` to the counter and returns its new value. */
	increment(options: { accountId: string; period: string; metric: string; by: number }): Promise<number>;
	/**
	 * Adds to several counters of one account and period at once (one statement: a message
	 * counts itself and its bytes) and returns their new values, by metric.
	 */
	incrementMany(options: {
		accountId: string;
		period: string;
		by: Record<string, number>;
	}): Promise<Record<string, number>>;
	get(options: { accountId: string; period: string; metric: string }): Promise<number>;
	/** Records that `threshold` fired for the counter; true only the first time. */
	markThreshold(options: { accountId: string; period: string; metric: string; threshold: number }): Promise<boolean>;
	/**
	 * Measures what every account keeps, into the counters of period `storage`: `payload_bytes`
	 * (its messages' payloads) and `wire_bytes` (its wire captures not yet past retention),
	 * replacing the previous measure. Run in a transaction, so that readers see one measure.
	 */
	measureStorage(): Promise<void>;
	/** The last storage measure of every account that keeps something (`/metrics`). */
	listStorage(): Promise<Array<{ accountId: string; metric: string; value: number }>>;
}

/** The usage period under which `measureStorage` keeps its figures. */
export const STORAGE_PERIOD = "storage";
