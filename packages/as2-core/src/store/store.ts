import type { MessageAttemptStore } from "./attempt-store.ts";
import type { EpcisStore } from "./epcis-store.ts";
import type { JobStore, ScheduleStore } from "./jobs.ts";
import type { RateLimitStore, UsageStore } from "./limits.ts";
import type { MessageSteps } from "./message-steps.ts";
import type { MessageStore } from "./message-store.ts";
import type { Page, PageRequest } from "./pagination.ts";
import type { CertificateStore, PartnerStore } from "./partner-store.ts";
import type {
	AccountRecord,
	ApiKeyRecord,
	Environment,
	EventRecord,
	IdempotencyRecord,
	MembershipRecord,
	SessionRecord,
	TenantRecord,
	UserRecord,
} from "./records.ts";
import type { WebhookDeliveryStore, WebhookEndpointStore } from "./webhooks.ts";

/**
 * The storage port of as2kit: typed repositories per aggregate, a job queue with leases, an
 * events outbox and transactions. Adapters (`@as2kit/storage-sqlite`, `@as2kit/storage-pg`)
 * implement it and run the conformance suite in `test/storage/` unchanged.
 *
 * Conventions every adapter keeps:
 * - Tenant-owned reads take the tenant id first; another tenant's row looks missing (null).
 * - Time is always a parameter; adapters never read the clock.
 * - A unique-constraint violation throws `As2Error("CONFLICT")` with `details.target`
 *   naming the constraint (`users.email`, `tenants.as2_id` …); other driver errors are
 *   wrapped so that no SQL reaches a response.
 *
 * @example
 * await store.transaction(async (tx) => {
 *   await tx.tenants.update(tenant.id, { name, updatedAt: now });
 *   await tx.events.append({ id: await tx.ids.next("evt_"), kind: "tenant.updated", … });
 * });
 */
export interface As2Store {
	accounts: AccountStore;
	users: UserStore;
	memberships: MembershipStore;
	sessions: SessionStore;
	tenants: TenantStore;
	apiKeys: ApiKeyStore;
	partners: PartnerStore;
	certificates: CertificateStore;
	messages: MessageStore;
	/** Transmission attempts and their wire captures (`GET /v1/messages/{id}/attempts`). */
	messageAttempts: MessageAttemptStore;
	events: EventStore;
	webhookEndpoints: WebhookEndpointStore;
	webhookDeliveries: WebhookDeliveryStore;
	/** Indexed EPCIS events of message payloads (`POST /v1/epcis/query`). */
	epcis: EpcisStore;
	idempotency: IdempotencyStore;
	rateLimits: RateLimitStore;
	usage: UsageStore;
	jobs: JobStore;
	schedules: ScheduleStore;
	ids: IdStore;
	/**
	 * Runs `fn` in one transaction: all of its writes commit together or none do. Calls on
	 * `tx` are inside it; a nested `tx.transaction` joins the outer one. Inside `fn`, only `tx`:
	 * a call on the store `transaction` was called on (its root) runs outside the transaction,
	 * and may wait for it (a deadlock on SQLite). The adapters refuse it when asked
	 * (`checkTransactions`, AS2_CHECK_TRANSACTIONS=1: on in the tests, off in production).
	 *
	 * `fn` awaits every call it makes on `tx` (directly, or through `Promise.all` and the like)
	 * before it settles: the store commits when `fn` has settled, and a call may write its
	 * statement after awaits of its own (PostgreSQL writes a transaction's statements without
	 * waiting for each answer). A call on `tx` once `fn` has settled belongs to no transaction
	 * and rejects, writing nothing, rather than running outside it (on SQLite, one made while
	 * another transaction's body runs is told apart only with `checkTransactions`).
	 */
	transaction<T>(fn: (tx: As2Store) => Promise<T>): Promise<T>;
	/**
	 * A transaction's last calls, with which the store may write COMMIT (on a transaction's store
	 * only; the body returns or awaits what it answers, and calls nothing on `tx` after it).
	 * Settles once every call has, rejecting with a failure (as `Promise.all` would, but without
	 * leaving a call running), and the transaction still commits only if every statement
	 * succeeded: a statement that fails makes the transaction reject with that statement's error,
	 * and nothing commits.
	 *
	 * On PostgreSQL, COMMIT goes out in the same write as the calls' statements, instead of in a
	 * round trip of its own once their answers are back (docs/performance-storage.md, "COMMIT with
	 * the last statements (stop 35)"). So each call given must decide nothing and write every
	 * statement it has without waiting for an answer of its own: no read whose answer leads to a
	 * write, no check that throws after reading a total (a call that must throw after a read, such
	 * as the plan's allowance, is awaited before, or with `Promise.all` as before). The store
	 * writes COMMIT early only when each unsettled call has a statement on the wire and none is
	 * still to be built; otherwise it waits for the calls and commits after them, as without it. A
	 * statement a call writes after an early COMMIT is refused, and the transaction rejects.
	 * Optional: a store without it (storage-sqlite, where a transaction's statements are
	 * synchronous and COMMIT is its commit group's) is used as `Promise.all` (`commitWith` of the
	 * server's service).
	 */
	commitWith?(calls: readonly (Promise<unknown> | undefined)[]): Promise<void>;
	/**
	 * A message's busiest steps as one statement each (message-steps.ts), on a store's root.
	 * Optional: `messageSteps(store)` makes them of the separate calls where a store has none.
	 */
	messageSteps?: MessageSteps;
	close(): Promise<void>;
}

export interface IdStore {
	/**
	 * The next identifier of a prefix: `<prefix><digits>` from a per-prefix sequence,
	 * zero-padded to 6 digits and growing past them (decisions.md, Identifiers).
	 */
	next(prefix: string): Promise<string>;
}

export interface AccountStore {
	create(account: AccountRecord): Promise<void>;
	get(id: string): Promise<AccountRecord | null>;
	findBySlug(slug: string): Promise<AccountRecord | null>;
	update(
		id: string,
		patch: Partial<Pick<AccountRecord, "name" | "plan" | "status">> & { updatedAt: Date },
	): Promise<AccountRecord | null>;
}

export interface UserStore {
	create(user: UserRecord): Promise<void>;
	get(id: string): Promise<UserRecord | null>;
	findByEmail(email: string): Promise<UserRecord | null>;
}

export interface MembershipStore {
	create(membership: MembershipRecord): Promise<void>;
	get(accountId: string, userId: string): Promise<MembershipRecord | null>;
	listForUser(userId: string): Promise<MembershipRecord[]>;
}

export interface SessionStore {
	create(session: SessionRecord): Promise<void>;
	findByTokenHash(tokenHash: string): Promise<SessionRecord | null>;
	touch(id: string, lastUsedAt: Date): Promise<void>;
	revoke(id: string, revokedAt: Date): Promise<void>;
}

export interface TenantStore {
	create(tenant: TenantRecord): Promise<void>;
	/** A tenant of `accountId`; null for another account's tenant. */
	get(accountId: string, id: string): Promise<TenantRecord | null>;
	/** Inbound routing by AS2-To (decisions.md): across accounts. */
	findByAs2Id(as2Id: string): Promise<TenantRecord | null>;
	findBySlug(accountId: string, slug: string): Promise<TenantRecord | null>;
	/** Tenants of an account, oldest first; `ids` narrows to those tenants. */
	list(accountId: string, page: PageRequest, filter?: { ids?: readonly string[] }): Promise<Page<TenantRecord>>;
	update(
		accountId: string,
		id: string,
		patch: Partial<Pick<TenantRecord, "name" | "as2Id" | "status">> & { updatedAt: Date },
	): Promise<TenantRecord | null>;
}

export interface ApiKeyListFilter {
	/** Only tenant-scoped keys of these tenants (account keys have no tenant). */
	tenantIds?: readonly string[];
	environment?: Environment;
}

export interface ApiKeyStore {
	create(key: ApiKeyRecord): Promise<void>;
	findByHash(keyHash: string): Promise<ApiKeyRecord | null>;
	get(accountId: string, id: string): Promise<ApiKeyRecord | null>;
	/** Keys of an account not revoked, newest first, narrowed by `filter`. */
	list(accountId: string, page: PageRequest, filter?: ApiKeyListFilter): Promise<Page<ApiKeyRecord>>;
	touch(id: string, lastUsedAt: Date): Promise<void>;
	revoke(accountId: string, id: string, revokedAt: Date): Promise<ApiKeyRecord | null>;
}

/** The job that fans an event out to the account's webhook endpoints (EventStore.appendNewWithFanOut). */
export interface EventFanOut {
	kind: string;
	runAt: Date;
}

export interface EventStore {
	append(event: EventRecord): Promise<void>;
	/**
	 * Appends an event under a new `evt_` id, the one `ids.next("evt_")` would have given, and
	 * resolves to it: what every change does, in one statement where the store can (issue #20).
	 */
	appendNew(event: Omit<EventRecord, "id">): Promise<string>;
	/**
	 * `appendNew`, and with it the event's webhook fan-out job (`fanOut.kind`, payload
	 * `{ eventId }`, due at `fanOut.runAt`, created at the event's `createdAt`) when a tenant of
	 * the event's account has an active webhook endpoint as the event is written: in one statement
	 * where the store can, so that an event costs no separate check (issue #20). Resolves to the
	 * event's id and whether the job was written.
	 */
	appendNewWithFanOut(event: Omit<EventRecord, "id">, fanOut: EventFanOut): Promise<{ id: string; fanOut: boolean }>;
	get(id: string): Promise<EventRecord | null>;
	/** Events of an account in the order they were written (by id sequence). */
	list(filter: {
		accountId: string;
		tenantId?: string;
		kind?: string;
		/** Only the events about this resource: those whose `data.id` it is (a message's timeline). */
		subjectId?: string;
		afterId?: string;
		limit?: number;
	}): Promise<EventRecord[]>;
}

export type IdempotencyBegin =
	| { outcome: "started"; record: IdempotencyRecord }
	| { outcome: "existing"; record: IdempotencyRecord };

export interface IdempotencyStore {
	/**
	 * Starts a keyed request atomically: inserts a pending record, or takes over a pending
	 * one whose lock expired, or answers the existing record (pending or completed).
	 */
	begin(record: IdempotencyRecord, now: Date): Promise<IdempotencyBegin>;
	get(scope: string, key: string): Promise<IdempotencyRecord | null>;
	complete(scope: string, key: string, response: { status: number; body: string }): Promise<void>;
	/** Forgets a key whose request failed on our side, so the client may retry it. */
	release(scope: string, key: string): Promise<void>;
	/** Deletes records past their retention; returns how many. */
	purgeExpired(now: Date): Promise<number>;
}
