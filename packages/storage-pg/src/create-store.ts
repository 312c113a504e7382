import { type As2Store, checkTransactionsByDefault, transactionChecks } from "@as2kit/core/store";
import pg from "pg";
import { AutocommitLane } from "./autocommit-lane.ts";
import { PgConnection, type Runner } from "./connection.ts";
import { applyMigrations } from "./migrate.ts";
import { createAccountStore, createMembershipStore, createUserStore } from "./repositories/accounts.ts";
import { createApiKeyStore } from "./repositories/api-keys.ts";
import { createCertificateStore } from "./repositories/certificates.ts";
import { createEpcisStore } from "./repositories/epcis.ts";
import { createEventStore } from "./repositories/events.ts";
import { createIdempotencyStore } from "./repositories/idempotency.ts";
import { createIdStore, sequenceEnsurer } from "./repositories/ids.ts";
import { createJobStore, createScheduleStore } from "./repositories/jobs.ts";
import { createRateLimitStore, createUsageStore } from "./repositories/limits.ts";
import { createMessageAttemptStore } from "./repositories/message-attempts.ts";
import { createMessageSteps } from "./repositories/message-steps.ts";
import { createMessageStore } from "./repositories/messages.ts";
import { createPartnerStore } from "./repositories/partners.ts";
import { createSessionStore } from "./repositories/sessions.ts";
import { createTenantStore } from "./repositories/tenants.ts";
import { createWebhookDeliveryStore } from "./repositories/webhook-deliveries.ts";
import { createWebhookEndpointStore } from "./repositories/webhook-endpoints.ts";

export interface PgStoreOptions {
	/** `postgres://user:password@host:port/database` (libpq parameters such as `sslmode` work too). */
	url: string;
	/** Connections in this instance's pool; default 10. */
	poolSize?: number;
	/**
	 * The statements outside transactions share one more connection, several in a write
	 * (autocommit-lane.ts); false sends each on a pooled connection. Default true.
	 */
	sharedConnection?: boolean;
	/** How long a statement may run, and a caller may wait for a pooled connection (ms); default 60000. */
	timeoutMs?: number;
	/**
	 * Refuse a call on the root store made inside a transaction's body (it would run outside the
	 * transaction, on another pooled connection) with an error naming the mistake. It costs every
	 * promise of the process a hook on Node 20 (`transactionChecks` of `@as2kit/core/store`): for
	 * tests and debugging. Default: AS2_CHECK_TRANSACTIONS=1.
	 */
	checkTransactions?: boolean;
}

/**
 * Connects a pool to PostgreSQL, applies the migrations (under an advisory lock, so several
 * instances may start at once), and returns the storage port over it.
 *
 * @example
 * const store = await createPgStore({ url: process.env.DATABASE_URL! });
 */
export async function createPgStore(options: PgStoreOptions): Promise<As2Store> {
	const timeoutMs = options.timeoutMs ?? 60_000;
	const pool = new pg.Pool({
		connectionString: options.url,
		max: options.poolSize ?? 10,
		connectionTimeoutMillis: timeoutMs,
		statement_timeout: timeoutMs,
		// A transaction left open by a stalled caller must not hold its locks for ever.
		idle_in_transaction_session_timeout: timeoutMs,
		application_name: "as2kit",
		// A transaction's BEGIN is written with its first statement (connection.ts, LazyBegin).
		// Every other caller awaits each query before the next, so it runs as without pipelining.
		pipeline: true,
	});
	// An idle client's error (the server restarted, the connection dropped) must not crash
	// the process: the pool drops that client and the next query opens another.
	pool.on("error", () => {});
	try {
		await applyMigrations(pool);
	} catch (error) {
		await pool.end();
		throw error;
	}
	const lane =
		options.sharedConnection === false
			? null
			: new AutocommitLane(
					() =>
						new pg.Client({
							connectionString: options.url,
							connectionTimeoutMillis: timeoutMs,
							statement_timeout: timeoutMs,
							application_name: "as2kit-lane",
							pipeline: true,
						}),
				);
	const connection = new PgConnection(
		pool,
		transactionChecks(options.checkTransactions ?? checkTransactionsByDefault()),
		lane,
	);
	// One connection of its own for the DDL of new id sequences (repositories/ids.ts), let go when idle.
	const ddl = new pg.Pool({
		connectionString: options.url,
		max: 1,
		idleTimeoutMillis: 1000,
		connectionTimeoutMillis: timeoutMs,
		application_name: "as2kit-ddl",
	});
	ddl.on("error", () => {});
	const ensureSequence = sequenceEnsurer(ddl);
	let closed: Promise<void> | null = null;
	const storeOver = (runner: Runner, inTransaction: boolean): As2Store => {
		const store: As2Store = {
			accounts: createAccountStore(runner),
			users: createUserStore(runner),
			memberships: createMembershipStore(runner),
			sessions: createSessionStore(runner),
			tenants: createTenantStore(runner),
			apiKeys: createApiKeyStore(runner),
			partners: createPartnerStore(runner),
			certificates: createCertificateStore(runner),
			messages: createMessageStore(runner, ensureSequence),
			messageAttempts: createMessageAttemptStore(runner),
			events: createEventStore(runner, ensureSequence),
			webhookEndpoints: createWebhookEndpointStore(runner),
			webhookDeliveries: createWebhookDeliveryStore(runner),
			epcis: createEpcisStore(runner),
			idempotency: createIdempotencyStore(runner),
			rateLimits: createRateLimitStore(runner),
			usage: createUsageStore(runner),
			jobs: createJobStore(runner),
			schedules: createScheduleStore(runner),
			ids: createIdStore(runner, ensureSequence),
			// A nested transaction joins the open one; its last calls are not the open one's (nested).
			transaction: inTransaction
				? (fn) => fn(nested(store))
				: (fn) => connection.transaction((runner) => fn(storeOver(runner, true))),
			...(inTransaction && runner.commitWith ? { commitWith: runner.commitWith } : {}),
			// One statement a step, outside any transaction (a single statement is atomic).
			...(inTransaction ? {} : { messageSteps: createMessageSteps(runner, ensureSequence) }),
			close: () => {
				closed ??= Promise.all([pool.end(), ddl.end(), lane?.close()]).then(() => {});
				return closed;
			},
		};
		return store;
	};
	return storeOver(connection.root, false);
}

/** A nested transaction's store: its body's last calls are awaited, COMMIT is the outer body's. */
function nested(store: As2Store): As2Store {
	if (!store.commitWith) return store;
	const view: As2Store = Object.create(store);
	Object.defineProperty(view, "commitWith", { value: undefined });
	return view;
}
