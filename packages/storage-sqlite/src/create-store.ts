import { fileURLToPath } from "node:url";
import { type As2Store, checkTransactionsByDefault, transactionChecks } from "@as2kit/core/store";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { type ActiveEndpointAnswers, forgetOnWrite } from "./active-endpoint-answers.ts";
import { type BackgroundCheckpointOptions, startBackgroundCheckpoints } from "./background-checkpoints.ts";
import { createCertificateListCache } from "./certificate-list-cache.ts";
import { type Exec, SqliteConnection } from "./connection.ts";
import { createPrivateDatabaseFile } from "./private-file.ts";
import { createAccountStore, createMembershipStore, createUserStore } from "./repositories/accounts.ts";
import { createApiKeyStore } from "./repositories/api-keys.ts";
import { createCertificateStore } from "./repositories/certificates.ts";
import { createEpcisStore } from "./repositories/epcis.ts";
import { createEventStore } from "./repositories/events.ts";
import { createIdempotencyStore } from "./repositories/idempotency.ts";
import { createIdStore } from "./repositories/ids.ts";
import { createJobStore, createScheduleStore } from "./repositories/jobs.ts";
import { createRateLimitStore, createUsageStore } from "./repositories/limits.ts";
import { createMessageAttemptStore } from "./repositories/message-attempts.ts";
import { createMessageStore } from "./repositories/messages.ts";
import { createPartnerStore } from "./repositories/partners.ts";
import { createSessionStore } from "./repositories/sessions.ts";
import { createTenantStore } from "./repositories/tenants.ts";
import { createWebhookDeliveryStore } from "./repositories/webhook-deliveries.ts";
import { createWebhookEndpointStore } from "./repositories/webhook-endpoints.ts";
import * as schema from "./schema.ts";
import { type SearchIndexingOptions, startBackgroundSearchIndexing } from "./search-indexing.ts";
import { cacheStatements } from "./statement-cache.ts";

export interface SqliteStoreOptions {
	/** A file path, a `file:` URL, or `:memory:` (one private database, for tests). */
	url: string;
	/** How long a statement waits for another connection's write lock (ms); default 5000. */
	busyTimeoutMs?: number;
	/**
	 * WAL checkpoints from a thread of their own (background-checkpoints.ts), for file
	 * databases; `false` leaves them to SQLite, inside the commits of this connection.
	 */
	backgroundCheckpoints?: BackgroundCheckpointOptions | false;
	/**
	 * New messages enter the search index in batches on a timer (search-indexing.ts); `false`
	 * leaves them queued until a search indexes them.
	 */
	searchIndexing?: SearchIndexingOptions | false;
	/**
	 * Refuse a call on the root store made inside a transaction's body (it would deadlock) with
	 * an error naming the mistake. It costs every promise of the process a hook on Node 20
	 * (`transactionChecks` of `@as2kit/core/store`): for tests and debugging. Default:
	 * AS2_CHECK_TRANSACTIONS=1.
	 */
	checkTransactions?: boolean;
}

const MIGRATIONS = fileURLToPath(new URL("../migrations", import.meta.url));

/**
 * The database file mapped for reads: 2 GiB, which SQLite caps at its build's maximum
 * (0x7fff0000 on Linux). Address space only; the pages are the OS's page cache, shared with
 * the other connections to the file. Past it, pages are read into the page cache as before.
 */
const MMAP_BYTES = 2 ** 31;
/**
 * SQLite's own page cache: the pages a transaction writes and those it reads from the WAL,
 * not the file's (mapped). 8 MiB holds a large transaction's changes without spilling them.
 */
const CACHE_KIB = 8192;

/**
 * Opens (creating if needed) a SQLite database in WAL mode, applies the migrations, and
 * returns the storage port over it.
 *
 * @example
 * const store = createSqliteStore({ url: "./data/as2.sqlite" });
 */
export function createSqliteStore(options: SqliteStoreOptions): As2Store {
	const path = toPath(options.url);
	if (path !== ":memory:") createPrivateDatabaseFile(path);
	const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
	const client = new Database(path);
	// Opening waits synchronously (nothing else runs yet); afterwards SqliteConnection waits
	// asynchronously, so SQLite's own busy handler is switched off.
	client.pragma(`busy_timeout = ${busyTimeoutMs}`);
	client.pragma("journal_mode = WAL");
	// NORMAL is durable across application crashes in WAL mode; only an OS crash or power
	// loss can lose the last commits (https://www.sqlite.org/pragma.html#pragma_synchronous).
	client.pragma("synchronous = NORMAL");
	// Pages are read from a memory map of the file, and SQLite's own cache stays small. Index
	// walks of large lists stay in memory (the OS's page cache, without a read call per page),
	// as they did with a 64 MiB cache. That cache cost every COMMIT that followed a b-tree
	// balance a walk over all its pages: the balance renumbers a page to the lock-byte page
	// (1 GiB / 4 KiB + 1) for a moment, and the COMMIT's pcache1Truncate then scans the whole
	// hash table for pages past the end: 120–160 µs with 13,600 pages (the sender: 1 COMMIT in 7).
	// Only reads use the map; writes still go through the WAL
	// (https://www.sqlite.org/mmap.html), so a crash loses nothing more than before. A read
	// error on the file's device becomes a SIGBUS rather than SQLITE_IOERR.
	client.pragma(`mmap_size = ${MMAP_BYTES}`);
	client.pragma(`cache_size = -${CACHE_KIB}`);
	// Temporary b-trees (sorts, DISTINCT, statement journals that spill) stay in memory. A
	// message insert outgrows the 64 KiB of statement journal SQLite keeps in memory: as a
	// file, that was a create and an unlink per message, and on ext4 without a journal every
	// unlinked inode slows later creates for minutes (the allocator checks recent deletions).
	client.pragma("temp_store = MEMORY");
	cacheStatements(client);
	const db = drizzle(client, { schema });
	migrate(db, { migrationsFolder: MIGRATIONS });
	client.pragma("busy_timeout = 0");
	const checkpoints =
		path === ":memory:" || options.backgroundCheckpoints === false
			? null
			: startBackgroundCheckpoints(client, path, options.backgroundCheckpoints);
	const checks = transactionChecks(options.checkTransactions ?? checkTransactionsByDefault());
	const connection = new SqliteConnection(db, busyTimeoutMs, undefined, checks);
	const indexing =
		options.searchIndexing === false ? null : startBackgroundSearchIndexing(connection.run, options.searchIndexing);
	const close = async () => {
		await indexing?.stop();
		await checkpoints?.stop();
		await connection.settle();
		client.close();
	};
	// The transaction's store remembers its events' endpoint checks for one body (active-endpoint-answers.ts).
	const answers: ActiveEndpointAnswers = new Map();
	const transactionStore = storeOver(connection, connection.runInTransaction, null, close, answers);
	return storeOver(connection, connection.run, { store: transactionStore, answers }, close, null);
}

/**
 * The store over `exec`; `inner` (the transaction's store and its endpoint answers) is null for
 * the store inside a transaction, which is given the `answers` its events and endpoints share.
 */
function storeOver(
	connection: SqliteConnection,
	exec: Exec,
	inner: { store: As2Store; answers: ActiveEndpointAnswers } | null,
	close: () => Promise<void>,
	answers: ActiveEndpointAnswers | null,
): As2Store {
	const transactionStore = inner?.store ?? null;
	// Reads of one statement: outside a transaction they need no BEGIN … COMMIT of their own.
	const one = inner ? connection.runStatement : exec;
	const webhookEndpointStore = createWebhookEndpointStore(exec);
	const store: As2Store = {
		accounts: createAccountStore(exec, one),
		users: createUserStore(exec),
		memberships: createMembershipStore(exec),
		sessions: createSessionStore(exec),
		tenants: createTenantStore(exec, one),
		apiKeys: createApiKeyStore(exec),
		partners: createPartnerStore(exec),
		certificates: createCertificateStore(exec, transactionStore ? createCertificateListCache() : null),
		messages: createMessageStore(exec, one),
		messageAttempts: createMessageAttemptStore(exec),
		events: createEventStore(exec, answers),
		webhookEndpoints: answers ? forgetOnWrite(webhookEndpointStore, answers) : webhookEndpointStore,
		webhookDeliveries: createWebhookDeliveryStore(exec),
		epcis: createEpcisStore(exec),
		idempotency: createIdempotencyStore(exec),
		rateLimits: createRateLimitStore(exec),
		usage: createUsageStore(exec),
		jobs: createJobStore(exec),
		schedules: createScheduleStore(exec),
		ids: createIdStore(exec),
		// A nested transaction joins the open one: its body runs in it, on the transaction's store.
		// Each body starts with no endpoint answers: those of the last body are another snapshot's.
		transaction: inner
			? (fn) =>
					connection.transaction(() => {
						inner.answers.clear();
						return fn(inner.store);
					})
			: (fn) => fn(store),
		close,
	};
	return store;
}

function toPath(url: string): string {
	if (url === ":memory:") return url;
	if (url.startsWith("file:")) return url.startsWith("file://") ? fileURLToPath(url) : url.slice("file:".length);
	return url;
}
