import type { PlanName } from "@as2kit/core/store";

/** What the engine needs to know of its deployment; `node/config-from-env.ts` fills it. */
export interface ServiceConfig {
	/** Plan of newly registered accounts (`AS2_DEFAULT_PLAN`). */
	defaultPlan: PlanName;
	/** Accept `http://` partner and webhook URLs (`AS2_ALLOW_HTTP=1`). */
	allowHttp: boolean;
	/** When set, `/auth/register` requires it as `registration_code` (`AS2_REGISTRATION_CODE`). */
	registrationCode: string | null;
	/** 32 bytes from which the keys for hashing tokens and encrypting private keys derive. */
	masterKey: Uint8Array;
	/** scrypt cost as log2(N); 15 by default (32 MiB, ~100 ms per hash on a 2-core host). */
	passwordCostLog2: number;
	/** Session lifetime in seconds; 30 days by default. */
	sessionTtlSeconds: number;
	/** Seconds a keyed request holds its Idempotency-Key before another may take it over. */
	idempotencyLockSeconds: number;
	/** How long a request waits for a concurrent one with the same Idempotency-Key. */
	idempotencyWaitMs: number;
	/** Limits of the Enterprise plan, "custom" in the spec; null values mean unlimited. */
	enterpriseLimits: Partial<Record<"requestsPerMinute" | "burst" | "concurrent", number>>;
}

export const DEFAULT_CONFIG: Omit<ServiceConfig, "masterKey"> = {
	defaultPlan: "free",
	allowHttp: false,
	registrationCode: null,
	passwordCostLog2: 15,
	sessionTtlSeconds: 30 * 24 * 3600,
	idempotencyLockSeconds: 600,
	idempotencyWaitMs: 30_000,
	enterpriseLimits: {},
};
