import type { Page, PageRequest } from "./pagination.ts";

/** A tenant's webhook endpoint (interface spec, Webhook endpoint). */
export interface WebhookEndpointRecord {
	id: string;
	accountId: string;
	tenantId: string;
	url: string;
	/** Event kinds and patterns it subscribes to: `message.sent`, `message.*`, `*`. */
	events: string[];
	active: boolean;
	/**
	 * Whether it receives the account-level events (`account.*`, `tenant.*`, `billing.*`) its
	 * `events` cover. Decided by the service: only a credential reaching the whole account sets
	 * it (README, Webhooks); an endpoint of lesser reach never learns about other tenants.
	 */
	accountEvents: boolean;
	/** The signing secret, sealed by the service; adapters store it as opaque text. */
	secretSealed: string;
	/** The first failed attempt since the last successful one; null while healthy. */
	failingSince: Date | null;
	/** Why the service deactivated the endpoint; null unless it did. */
	disabledReason: string | null;
	createdAt: Date;
	updatedAt: Date;
}

/** Attempt counters of one endpoint, kept as attempts finish (so purging old deliveries keeps them). */
export interface WebhookEndpointStats {
	endpointId: string;
	url: string;
	attempts: number;
	succeeded: number;
	failed: number;
	/** Sum and count of the response times of attempts that got an HTTP response. */
	responseTimeTotalMs: number;
	responses: number;
	lastAttemptAt: Date | null;
}

export type WebhookDeliveryStatus = "pending" | "succeeded" | "failed";

/**
 * One event on its way to one endpoint. While `pending` it is due at `nextAttemptAt`, or
 * paused when that is null (its endpoint is inactive); an attempt in progress holds it
 * through `lockedBy`/`lockedUntil` (a lease).
 */
export interface WebhookDeliveryRecord {
	/** `whd_…`: also the `x-webhook-id` header, the same on every attempt. */
	id: string;
	accountId: string;
	tenantId: string;
	endpointId: string;
	/** The outbox event delivered; null for `webhook.test`, which is not an outbox event. */
	eventId: string | null;
	eventKind: string;
	/**
	 * Deliveries with one key to one endpoint go out one at a time, in the order they were made:
	 * a message's events carry its id, so `message.delivered` never overtakes `message.sent`.
	 * Null: no order with any other delivery.
	 */
	orderingKey: string | null;
	/** The exact request body: signed and sent unchanged on every attempt. */
	body: string;
	status: WebhookDeliveryStatus;
	/** Attempts finished so far. */
	attempts: number;
	nextAttemptAt: Date | null;
	lastAttemptAt: Date | null;
	lastResponseStatus: number | null;
	lastError: string | null;
	lockedBy: string | null;
	lockedUntil: Date | null;
	createdAt: Date;
	updatedAt: Date;
}

/** One HTTP attempt of a delivery. */
export interface WebhookAttemptRecord {
	deliveryId: string;
	tenantId: string;
	endpointId: string;
	/** 1 for the first attempt of the delivery. */
	attempt: number;
	succeeded: boolean;
	/** Null when no HTTP response arrived (timeout, refused, TLS failure). */
	responseStatus: number | null;
	responseTimeMs: number | null;
	/** The start of the response body, for the owner's debugging. */
	responseBody: string | null;
	error: string | null;
	attemptedAt: Date;
}

export interface WebhookEndpointStore {
	create(endpoint: WebhookEndpointRecord): Promise<void>;
	/** An endpoint of `tenantId`; null for another tenant's. */
	get(tenantId: string, id: string): Promise<WebhookEndpointRecord | null>;
	/** A tenant's endpoints, oldest first. */
	list(tenantId: string, page: PageRequest): Promise<Page<WebhookEndpointRecord>>;
	/** A tenant's active endpoints, oldest first: the candidates of an event's fan-out. */
	listActive(tenantId: string): Promise<WebhookEndpointRecord[]>;
	update(
		tenantId: string,
		id: string,
		patch: Partial<
			Pick<
				WebhookEndpointRecord,
				"url" | "events" | "accountEvents" | "active" | "secretSealed" | "failingSince" | "disabledReason"
			>
		> & { updatedAt: Date },
	): Promise<WebhookEndpointRecord | null>;
	/** Removes the endpoint with its deliveries and their attempts; false when there was none. */
	delete(tenantId: string, id: string): Promise<boolean>;
	/**
	 * Counts a finished attempt and tracks the failure streak, atomically: a success clears
	 * `failingSince`, a failure sets it to `at` unless already set. Null when the endpoint is gone.
	 */
	recordAttempt(
		tenantId: string,
		id: string,
		attempt: { succeeded: boolean; responseTimeMs: number | null; at: Date },
	): Promise<WebhookEndpointRecord | null>;
	/** Counters of each of a tenant's endpoints, oldest endpoint first. */
	stats(tenantId: string): Promise<WebhookEndpointStats[]>;
}

export interface ClaimDeliveriesOptions {
	limit: number;
	/**
	 * At most this many deliveries of one endpoint held at once, counting those already held
	 * by anyone: the per-endpoint concurrency cap, decided at claim time.
	 */
	perEndpointLimit: number;
	lockedBy: string;
	now: Date;
	lockedUntil: Date;
}

export interface WebhookDeliveryStore {
	/**
	 * Inserts a delivery; false, inserting nothing, when one of the same event to the same
	 * endpoint exists (a fan-out that runs twice creates each delivery once). Deliveries
	 * without an event never collide.
	 */
	create(delivery: WebhookDeliveryRecord): Promise<boolean>;
	get(tenantId: string, id: string): Promise<WebhookDeliveryRecord | null>;
	/**
	 * An endpoint's deliveries, newest first; `status` narrows, and `exceptCategories` leaves
	 * out the deliveries of those event categories (`tenant` leaves out `tenant.created`, …).
	 */
	list(
		tenantId: string,
		endpointId: string,
		page: PageRequest,
		filter?: { status?: WebhookDeliveryStatus; exceptCategories?: readonly string[] },
	): Promise<Page<WebhookDeliveryRecord>>;
	/** The attempts of these deliveries, by delivery then attempt number. */
	listAttempts(tenantId: string, deliveryIds: readonly string[]): Promise<WebhookAttemptRecord[]>;
	/**
	 * Leases up to `limit` due deliveries (pending, nextAttemptAt ≤ now, not held or lease
	 * expired) of active endpoints, earliest due first, never more than `perEndpointLimit`
	 * held per endpoint. A delivery is held by at most one caller at a time, also across
	 * processes sharing the database. An endpoint already at its limit never keeps others'
	 * deliveries from a claim, and the cost of a claim does not grow with the backlog.
	 */
	claimDue(options: ClaimDeliveriesOptions): Promise<WebhookDeliveryRecord[]>;
	/**
	 * Records a finished attempt and the delivery's next state, and releases the lease, in
	 * one step; false, recording nothing, when `lockedBy` no longer holds the delivery.
	 */
	finishAttempt(
		tenantId: string,
		id: string,
		lockedBy: string,
		outcome: {
			attempt: WebhookAttemptRecord;
			status: WebhookDeliveryStatus;
			nextAttemptAt: Date | null;
			updatedAt: Date;
		},
	): Promise<boolean>;
	/** Releases a lease without an attempt, due again at `nextAttemptAt` (null: paused). */
	release(tenantId: string, id: string, lockedBy: string, nextAttemptAt: Date | null): Promise<void>;
	/**
	 * Pauses an endpoint's pending deliveries (nextAttemptAt null) that no attempt holds at
	 * `now`; returns how many.
	 */
	pause(tenantId: string, endpointId: string, now: Date): Promise<number>;
	/** Makes an endpoint's paused deliveries that no attempt holds due at `at`; returns how many. */
	resume(tenantId: string, endpointId: string, at: Date): Promise<number>;
	/**
	 * Makes a delivery pending and due at `at` (a manual retry); null when it is missing or
	 * an attempt holds it (pending with a lease not expired at `at`).
	 */
	requeue(tenantId: string, id: string, at: Date): Promise<WebhookDeliveryRecord | null>;
	/** Deletes up to `limit` succeeded or failed deliveries last updated before `before`, with their attempts. */
	purgeFinished(before: Date, limit: number): Promise<number>;
}
