import { setImmediate } from "node:timers";
import { setTimeout as sleep } from "node:timers/promises";
import { As2Error } from "@as2kit/core";
import { type TransactionChecks, transactionChecks } from "@as2kit/core/store";
import type Database from "better-sqlite3";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { CommitGroup } from "./commit-group.ts";
import type * as schema from "./schema.ts";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/** Runs one synchronous unit of SQL and resolves to its result. */
export type Exec = <T>(op: (db: Db) => T) => Promise<T>;

/** How big and how long a commit group may grow before it commits. */
export interface GroupLimits {
	/** Members a group takes at most (each is a savepoint in the open transaction). */
	maxMembers: number;
	/** How long a group holds the write lock at most, so another connection waiting for it gets it soon. */
	maxHoldMs: number;
}

const GROUP_LIMITS: GroupLimits = { maxMembers: 64, maxHoldMs: 5 };

/**
 * One better-sqlite3 connection shared by async callers. better-sqlite3 is synchronous, but
 * the port's transactions are async (PostgreSQL needs them to be): while one is open, every
 * statement on this connection belongs to it, so other callers wait for it to end. A lone
 * statement never waits longer than the transaction in front of it.
 *
 * Group commit: a transaction's body runs inside a SAVEPOINT of one physical write
 * transaction (a CommitGroup) that stays open until the end of the event loop's turn (a
 * setImmediate), and commits once for every transaction that ended in it (within
 * GroupLimits). A COMMIT writes every page its transaction changed to the WAL, and the
 * messages of one turn change the same pages (table and index leaves, the job queue, the
 * event log): one COMMIT writes them once. Each caller is answered only after the COMMIT
 * holding its writes succeeded (durability before acknowledgement); a body that throws rolls
 * back to its own savepoint; a COMMIT that fails rejects every member. A lone statement would
 * see a pending group's writes, so the group commits before it runs: nobody reads data that
 * might still roll back, and a lone statement waits for no turn to end.
 *
 * Another connection's write lock is waited for asynchronously (busy_timeout is 0 and
 * SQLITE_BUSY is retried after a pause), never by SQLite's synchronous busy handler: that one
 * blocks the event loop, so a process serves nothing while it waits, and when both
 * connections live in one process the transaction holding the lock can never finish: the
 * wait ends in "database is locked".
 *
 * A transaction nested in another joins it through the transaction's store (create-store.ts),
 * never through this connection. The root store used inside a transaction's body would wait
 * for the lock that body holds: with `checks` on, it fails at once instead
 * (`transactionChecks` of `@as2kit/core/store`).
 */
export class SqliteConnection {
	private locked = false;
	private readonly waiters: Array<() => void> = [];
	/** Whether a transaction's body runs (one at a time: it holds the lock), for runInTransaction. */
	private bodyRunning = false;
	/** The physical write transaction open on this connection, committing at the end of the turn. */
	private group: CommitGroup | null = null;

	constructor(
		readonly db: Db,
		/** How long to wait for another connection's lock before giving up. */
		private readonly busyTimeoutMs: number,
		private readonly limits: GroupLimits = GROUP_LIMITS,
		private readonly checks: TransactionChecks = transactionChecks(false),
	) {}

	/** A unit of SQL outside any transaction, as one transaction of its own (BEGIN … COMMIT). */
	readonly run: Exec = (op) => this.lone(op, (op) => this.atomically(op));

	/**
	 * A lone op of exactly one statement, outside any transaction. SQLite runs one statement
	 * atomically by itself (autocommit), and one refused busy leaves nothing behind, so it needs
	 * no BEGIN … COMMIT around it: two statements fewer, for the lone reads of a received
	 * message (tenant, account, message; docs/performance-storage.md, "The receiver's storage
	 * (stop 32)"). A pending group still commits first. With `checks` on (the tests), an op
	 * that prepares a second statement is refused at it: two autocommit statements are two
	 * transactions, and `run` is the way for them. Not for a write returning rows: better-sqlite3's
	 * `get` ignores the reset that commits it, so a failed commit would go unseen (`all` reports it).
	 */
	readonly runStatement: Exec = (op) => this.lone(op, (op) => this.oneStatement(op));

	/** `op` outside any transaction, through `unit` (as one transaction, or as one statement). */
	private async lone<T>(op: (db: Db) => T, unit: (op: (db: Db) => T) => T): Promise<T> {
		if (this.checks.inBody()) {
			// Waiting here would deadlock: the caller holds the lock it waits for.
			throw new Error("storage-sqlite: the root store was used inside a transaction; use the transaction's store");
		}
		// The common case, no transaction in front and no other connection's lock, runs at once:
		// the retry loop's clock and promises only when SQLite answered busy.
		if (!this.locked) {
			try {
				return this.runNow(op, unit);
			} catch (error) {
				if (!isBusy(error)) throw error;
			}
		}
		return this.whileBusy(async () => {
			if (!this.locked) return this.runNow(op, unit);
			await this.acquire();
			try {
				return this.runNow(op, unit);
			} finally {
				this.release();
			}
		});
	}

	/**
	 * A statement inside the transaction that holds the lock. The transaction's store is one for
	 * every transaction, so a call on it from outside a running body (a store kept once its body
	 * settled) is refused: it would run in whichever transaction holds the connection then, or in
	 * none (the port's rule, As2Store.transaction). While no body runs, that needs no async
	 * context; one made while another transaction's body runs is told apart only with `checks`.
	 */
	readonly runInTransaction: Exec = async (op) => {
		if (!this.bodyRunning || this.checks.inBody() === false) {
			throw new Error(
				"storage-sqlite: a call on a transaction's store after its body settled; it belongs to no transaction",
			);
		}
		return translate(() => op(this.db));
	};

	async transaction<T>(fn: () => Promise<T>): Promise<T> {
		if (this.checks.inBody()) {
			// A transaction of the root store would wait for the lock this body holds (a nested one
			// joins through the transaction's store, create-store.ts).
			throw new Error("storage-sqlite: the root store was used inside a transaction; use the transaction's store");
		}
		await this.acquire();
		let result: T;
		let committed: Promise<void>;
		try {
			const opening = this.group === null;
			const group = this.group ?? (await this.openGroup());
			const client = this.db.$client;
			// The member that opens the group needs no savepoint: undoing it is undoing the transaction
			// (nobody else has run in it yet). Two statements fewer when nothing else is in flight.
			if (!opening) client.prepare("SAVEPOINT member").run();
			try {
				this.bodyRunning = true;
				try {
					result = await this.checks.inside(fn);
				} finally {
					this.bodyRunning = false;
				}
				if (!opening) client.prepare("RELEASE member").run();
			} catch (error) {
				if (opening) this.abandonGroup(group);
				else this.abandonMember(group, error);
				throw error;
			}
			committed = this.joined(group);
		} finally {
			this.release();
		}
		await committed;
		return result;
	}

	/** Commits the open group now (closing the store). */
	async settle(): Promise<void> {
		const group = this.group;
		if (!group) return;
		await this.acquire();
		try {
			this.commit(group);
		} finally {
			this.release();
		}
	}

	/**
	 * A lone statement, called while no transaction body runs. It would see a pending group's
	 * writes, so that group commits first: the statement reads only committed data and is
	 * answered at once, never after the rest of the turn (POST /v1/messages makes several).
	 */
	private runNow<T>(op: (db: Db) => T, unit: (op: (db: Db) => T) => T): T {
		if (this.group !== null) this.commit(this.group);
		return translate(() => unit(op));
	}

	/**
	 * Opens the physical write transaction, committed at the end of this turn of the event loop:
	 * after the other I/O callbacks of this poll phase, whose transactions join it.
	 */
	private async openGroup(): Promise<CommitGroup> {
		// IMMEDIATE takes the write lock up front, so two processes on one file cannot both
		// read and then fail to upgrade (SQLITE_BUSY inside the transaction).
		const begin = this.db.$client.prepare("BEGIN IMMEDIATE");
		try {
			begin.run();
		} catch (error) {
			if (!isBusy(error)) throw error;
			await this.whileBusy(() => begin.run());
		}
		const group = new CommitGroup();
		this.group = group;
		setImmediate(() => this.commitWhenFree(group));
		return group;
	}

	/** A member's writes are in: commits at once when the group is full or has held the lock long enough. */
	private joined(group: CommitGroup): Promise<void> {
		const committed = group.join();
		if (group.members >= this.limits.maxMembers || performance.now() - group.openedAt >= this.limits.maxHoldMs) {
			this.commit(group);
		}
		return committed;
	}

	/** Commits `group` as soon as no transaction body runs, ahead of the callers waiting to start one. */
	private commitWhenFree(group: CommitGroup): void {
		if (this.group !== group) return;
		if (!this.locked) {
			this.commit(group);
			return;
		}
		this.waiters.unshift(() => {
			try {
				this.commit(group);
			} finally {
				this.release();
			}
		});
	}

	private commit(group: CommitGroup): void {
		if (this.group !== group) return;
		this.group = null;
		const client = this.db.$client;
		try {
			client.prepare("COMMIT").run();
		} catch (error) {
			rollBack(client);
			group.failed(error);
			return;
		}
		group.committed();
	}

	/** Undoes the group its first member opened, when that member failed before anyone joined. */
	private abandonGroup(group: CommitGroup): void {
		if (this.group === group) this.group = null;
		rollBack(this.db.$client);
	}

	/**
	 * Undoes a member that failed: its savepoint only, unless SQLite already rolled the whole
	 * transaction back (SQLITE_FULL, an I/O error…): then the writes of every member before it
	 * are gone too, and the group fails.
	 */
	private abandonMember(group: CommitGroup, error: unknown): void {
		const client = this.db.$client;
		if (client.inTransaction) {
			try {
				client.prepare("ROLLBACK TO member").run();
				client.prepare("RELEASE member").run();
				return;
			} catch {
				rollBack(client);
			}
		}
		if (this.group === group) this.group = null;
		group.failed(error);
	}

	/**
	 * One synchronous unit of SQL as one transaction: when another connection's lock makes it
	 * fail (SQLITE_BUSY), it leaves nothing behind and can simply run again.
	 */
	private atomically<T>(op: (db: Db) => T): T {
		const client = this.db.$client;
		// Prepared (and cached, statement-cache.ts) rather than exec'd, here and in transaction():
		// parsing BEGIN and COMMIT again for every statement cost more than most statements.
		client.prepare("BEGIN").run();
		try {
			const result = op(this.db);
			client.prepare("COMMIT").run();
			return result;
		} catch (error) {
			if (client.inTransaction) client.prepare("ROLLBACK").run();
			throw error;
		}
	}

	/**
	 * `op`, declared one statement, in autocommit. Checked (the tests), a second statement
	 * prepared by it is refused before it runs, naming the mistake.
	 */
	private oneStatement<T>(op: (db: Db) => T): T {
		if (this.checks.inBody() === null) return op(this.db);
		const client = this.db.$client;
		const prepare = client.prepare;
		let prepared = 0;
		client.prepare = ((source: string) => {
			if (++prepared > 1) {
				throw new Error(`storage-sqlite: an op run as one statement prepared a second one: ${source}`);
			}
			return prepare.call(client, source);
		}) as typeof client.prepare;
		try {
			return op(this.db);
		} finally {
			client.prepare = prepare;
		}
	}

	/** Retries `attempt` while another connection holds the lock, pausing `busyPauseMs`, up to the busy timeout. */
	private async whileBusy<T>(attempt: () => T | Promise<T>): Promise<T> {
		const deadline = Date.now() + this.busyTimeoutMs;
		for (let retry = 0; ; retry++) {
			try {
				return await attempt();
			} catch (error) {
				if (!isBusy(error) || Date.now() >= deadline) throw error;
				await sleep(busyPauseMs(retry, Math.random()));
			}
		}
	}

	private acquire(): Promise<void> {
		if (!this.locked) {
			this.locked = true;
			return Promise.resolve();
		}
		return new Promise((resolve) => this.waiters.push(resolve));
	}

	private release(): void {
		const next = this.waiters.shift();
		if (next) next();
		else this.locked = false;
	}
}

/**
 * The pause before the `retry`th new try of a write whose lock another connection holds: about
 * 0.5 ms, 1 ms, then 1–3 ms (`jitter` in [0, 1) spreads each by ×0.5–1.5). The holder is the
 * checkpoint thread's RESTART (background-checkpoints.ts: frames copied and synced under the
 * write lock, 4–25 ms, about once a second at 300 messages/s), and every transaction of this
 * connection queues behind the one waiting: a pause that doubled up to 20 ms answered up to
 * 18–22 ms after the lock's release, a wait every POST of that moment shared (docs/performance.md,
 * "The checkpoint's write lock and the POST's p99 (stop 36)"). A try costs microseconds, and
 * one loop a connection retries.
 */
export function busyPauseMs(retry: number, jitter: number): number {
	return Math.min(2, 2 ** (retry - 1)) * (0.5 + jitter);
}

function rollBack(client: Database.Database): void {
	try {
		if (client.inTransaction) client.prepare("ROLLBACK").run();
	} catch {
		// Nothing left to undo: SQLite rolled back on its own.
	}
}

/** SQLITE_BUSY and its extended codes: another connection holds a lock this one needs. */
function isBusy(error: unknown): boolean {
	const code = (error as { code?: unknown })?.code;
	return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/** Unique violations become As2Error("CONFLICT") naming the constraint; nothing else changes. */
function translate<T>(op: () => T): T {
	try {
		return op();
	} catch (error) {
		const code = (error as { code?: unknown }).code;
		if (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
			const target = /constraint failed: (.+)$/m.exec((error as Error).message)?.[1] ?? "unknown";
			throw new As2Error("CONFLICT", `unique constraint on ${target}`, { details: { target }, cause: error });
		}
		throw error;
	}
}
