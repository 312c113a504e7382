import type { PlanName } from "@as2kit/core/store";

/** What the engine needs to know of its deployment; `node/config-from-env.ts` fills it. */
export interface ServiceConfig {
	/** Plan of newly registered accounts (`AS2_DEFAULT_PLAN`). */
	defaultPlan: PlanName;
	/** Accept `http://` partner and webhook URLs (`AS2_ALLOW_HTTP=1`). */
	allowHttp: boolean;
	/**
	 * Let partner, MDN and webhook URLs reach loopback, private and link-local addresses
	 * (`AS2_ALLOW_PRIVATE_TARGETS=1`: on-premise, tests); not implied by `allowHttp`.
	 */
	allowPrivateTargets: boolean;
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
	/** Seconds before each webhook delivery attempt (`AS2_WEBHOOK_RETRY_DELAYS`). */
	webhookRetryDelays: readonly number[];
	/** Deadline of one webhook delivery attempt, connecting included (interface spec: 30 s). */
	webhookTimeoutSeconds: number;
	/** Webhook attempts in flight at once per endpoint, across all instances. */
	webhookEndpointConcurrency: number;
	/** Seconds before each transmission attempt (`AS2_SEND_RETRY_DELAYS`). */
	sendRetryDelays: readonly number[];
	/** How long an async MDN may take (`AS2_MDN_TIMEOUT_SECONDS`). */
	mdnTimeoutSeconds: number;
	/** HTTP timeout towards partners, and the longest wait for a sync MDN (`AS2_HTTP_TIMEOUT_SECONDS`). */
	httpTimeoutSeconds: number;
	/**
	 * Keep the exact bytes of every transmission attempt in the blob store (`AS2_WIRE_CAPTURE`),
	 * downloadable from `GET /v1/messages/{id}/attempts/{n}/request` … (issue #18).
	 */
	wireCapture: boolean;
	/** This deployment's public base URL, for async MDN receipts (`AS2_PUBLIC_URL`). */
	publicUrl: string | null;
	/**
	 * With `publicUrl` unset, the base URL of this process's own AS2 listener (derived at start):
	 * async MDNs are asked to come back there, so they work out of the box on one host.
	 */
	listenerUrl: string | null;
	/**
	 * `/as2/receive` per partner: the deployment's cap on burst and sustained messages per second
	 * (`AS2_RECEIVE_BURST`, `AS2_RECEIVE_PER_SECOND`); each plan's own limits are lower (plans.ts).
	 */
	receiveBurst: number;
	receivePerSecond: number;
	/** Inbound messages received or processed at once on this instance (`AS2_RECEIVE_CONCURRENCY`). */
	receiveConcurrency: number;
}

export const DEFAULT_CONFIG: Omit<ServiceConfig, "masterKey"> = {
	defaultPlan: "free",
	allowHttp: false,
	allowPrivateTargets: false,
	registrationCode: null,
	passwordCostLog2: 15,
	sessionTtlSeconds: 30 * 24 * 3600,
	idempotencyLockSeconds: 600,
	idempotencyWaitMs: 30_000,
	enterpriseLimits: {},
	webhookRetryDelays: [0, 15, 900, 3600, 21600, 86400],
	webhookTimeoutSeconds: 30,
	webhookEndpointConcurrency: 8,
	sendRetryDelays: [0, 60, 300, 900, 3600],
	mdnTimeoutSeconds: 86400,
	httpTimeoutSeconds: 120,
	wireCapture: true,
	publicUrl: null,
	listenerUrl: null,
	receiveBurst: 2000,
	receivePerSecond: 500,
	receiveConcurrency: 64,
};
