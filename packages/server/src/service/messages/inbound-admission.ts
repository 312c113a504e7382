import type { As2Store, BucketOptions } from "@as2kit/core/store";

/** Most tokens an instance takes from a partner's bucket at once. */
const MAX_BATCH = 8;
/** Tokens taken ahead and not spent within this time are dropped. */
const LEASE_MS = 1000;
/** Buckets with tokens held at most; past it the holdings start over (they are only a saving). */
const MAX_KEYS = 10_000;

export interface InboundAdmission {
	/** One message of `bucket.key`: allowed, or refused with the seconds until a token is there. */
	admit(bucket: BucketOptions): Promise<{ allowed: boolean; retryAfterSeconds: number }>;
}

/**
 * The per-partner limit of `/as2/receive` (decisions.md) on the storage token bucket every
 * instance shares. Taking a token is a write transaction: one per inbound message, about 2%
 * of a receiver's CPU under load. So an instance takes a few tokens at once, as many as the
 * bucket has up to a batch, and spends them on that key's next messages within a second.
 *
 * The bucket still never admits more than its rate: a token is withdrawn before it is spent.
 * What changes is that an instance may hold tokens another instance cannot use, and drops
 * those it has not spent in time. The batch is at most 1% of the bucket's capacity (8 with
 * the defaults, none below a capacity of 200), so a tight limit stays exact.
 */
export function createInboundAdmission(store: As2Store): InboundAdmission {
	const held = new Map<string, { tokens: number; until: number }>();
	return {
		async admit(bucket) {
			const at = bucket.now.getTime();
			const lease = held.get(bucket.key);
			if (lease && lease.tokens > 0 && lease.until > at) {
				lease.tokens--;
				return { allowed: true, retryAfterSeconds: 0 };
			}
			const batch = Math.max(1, Math.min(MAX_BATCH, Math.floor(bucket.capacity / 100)));
			const taken = await store.rateLimits.take({ ...bucket, upTo: batch });
			if (taken.taken > 1) {
				// Another message of the key may have taken a batch meanwhile: keep both.
				const now = held.get(bucket.key);
				const kept = now && now.until > at ? now.tokens : 0;
				if (held.size >= MAX_KEYS) held.clear();
				held.set(bucket.key, { tokens: kept + taken.taken - 1, until: at + LEASE_MS });
			}
			return taken;
		},
	};
}
