import type { ApiKeyRecord } from "@as2kit/core/store";
import { createVersionedCache, type ReadTicket } from "./config-cache/versioned-cache.ts";
import type { Principal } from "./principal.ts";

/**
 * How long an instance keeps authenticating an API key from memory without reading it again:
 * the bound on how late a change made on ANOTHER instance (a revocation, a new plan) is seen
 * here. On the instance that made the change it is seen at once (`invalidate`). README,
 * Authentication.
 */
export const CREDENTIAL_CACHE_TTL_MS = 1000;
/** Past this many remembered credentials the cache starts afresh (a bound on its memory). */
const MAX_ENTRIES = 10_000;

/**
 * API-key authentication remembered for a second (issue #20): a request with a known key
 * otherwise costs three reads (the key, its account, its tenant) before any work. Versioned:
 * every change this instance makes to a key or an account (a revocation, a plan) bumps the
 * generation, and an entry from an older generation is never used, so such a change is
 * immediate here, even for a lookup in flight while it committed. Tenants need no bump: none
 * is ever removed, and a key without X-Tenant-ID acts in its account's oldest one. Expiry is
 * checked on every use against the key's own `expires_at`. Only successes are remembered:
 * guessing keys fills nothing.
 */
export interface CredentialCache {
	/** The principal remembered for this key hash and X-Tenant-ID, or null when it must be read. */
	get(cacheKey: string): { key: ApiKeyRecord; principal: Principal } | null;
	/** Starts a lookup: what `put` needs to tell whether a change happened meanwhile. */
	begin(): ReadTicket;
	put(cacheKey: string, started: ReadTicket, key: ApiKeyRecord, principal: Principal): void;
	/** A key or an account changed on this instance: forget everything read before. */
	invalidate(): void;
	/** Runs a change to a key or an account, then invalidates (once it has committed or failed). */
	invalidateAfter<T>(change: () => Promise<T>): Promise<T>;
}

/** `clock` is monotonic milliseconds (tests pass their own). */
export function createCredentialCache(
	ttlMs = CREDENTIAL_CACHE_TTL_MS,
	clock: () => number = () => performance.now(),
): CredentialCache {
	// Not frozen: authentication updates the remembered key's last_used_at (authenticate.ts).
	const cache = createVersionedCache(ttlMs, clock, MAX_ENTRIES, { freeze: false });
	return {
		get: (cacheKey) => cache.get<{ key: ApiKeyRecord; principal: Principal }>(cacheKey) ?? null,
		begin: cache.begin,
		put: (cacheKey, started, key, principal) => cache.put(cacheKey, started, { key, principal }),
		invalidate: cache.invalidate,
		async invalidateAfter(change) {
			try {
				return await change();
			} finally {
				cache.invalidate();
			}
		},
	};
}
