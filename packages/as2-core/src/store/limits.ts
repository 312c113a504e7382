/** Result of taking one token from a bucket (decisions.md, Rate limits). */
export interface TakeResult {
	allowed: boolean;
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
}

export interface RateLimitStore {
	/** Refills the bucket for the time elapsed, then takes one token if there is one. Atomic. */
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
	get(options: { accountId: string; period: string; metric: string }): Promise<number>;
	/** Records that `threshold` fired for the counter; true only the first time. */
	markThreshold(options: { accountId: string; period: string; metric: string; threshold: number }): Promise<boolean>;
}
