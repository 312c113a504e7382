import { AsyncLocalStorage } from "node:async_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { As2Error } from "@as2kit/core";
import type Database from "better-sqlite3";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import type * as schema from "./schema.ts";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/** Runs one synchronous unit of SQL and resolves to its result. */
export type Exec = <T>(op: (db: Db) => T) => Promise<T>;

/**
 * One better-sqlite3 connection shared by async callers. better-sqlite3 is synchronous, but
 * the port's transactions are async (PostgreSQL needs them to be): while one is open, every
 * statement on this connection belongs to it, so other callers wait for it to end. A lone
 * statement never waits longer than the transaction in front of it.
 *
 * Another connection's write lock is waited for asynchronously (busy_timeout is 0 and
 * SQLITE_BUSY is retried after a pause), never by SQLite's synchronous busy handler: that one
 * blocks the event loop, so a process serves nothing while it waits, and when both
 * connections live in one process the transaction holding the lock can never finish: the
 * wait ends in "database is locked".
 */
export class SqliteConnection {
	private locked = false;
	private readonly waiters: Array<() => void> = [];
	private readonly insideTransaction = new AsyncLocalStorage<SqliteConnection>();

	constructor(
		readonly db: Db,
		/** How long to wait for another connection's lock before giving up. */
		private readonly busyTimeoutMs: number,
	) {}

	/** A statement outside any transaction. */
	readonly run: Exec = async (op) => {
		if (this.insideTransaction.getStore() === this) {
			// Waiting here would deadlock: the caller holds the lock it waits for.
			throw new Error("storage-sqlite: the root store was used inside a transaction; use the transaction's store");
		}
		// The common case, no transaction in front and no other connection's lock, runs at once:
		// the retry loop's clock and promises only when SQLite answered busy.
		if (!this.locked) {
			try {
				return translate(() => this.atomically(op));
			} catch (error) {
				if (!isBusy(error)) throw error;
			}
		}
		return this.whileBusy(async () => {
			if (!this.locked) return translate(() => this.atomically(op));
			await this.acquire();
			try {
				return translate(() => this.atomically(op));
			} finally {
				this.release();
			}
		});
	};

	/** A statement inside the transaction that holds the lock. */
	readonly runInTransaction: Exec = async (op) => translate(() => op(this.db));

	async transaction<T>(fn: () => Promise<T>): Promise<T> {
		if (this.insideTransaction.getStore() === this) return fn();
		await this.acquire();
		try {
			// IMMEDIATE takes the write lock up front, so two processes on one file cannot both
			// read and then fail to upgrade (SQLITE_BUSY inside the transaction).
			const client = this.db.$client;
			const begin = client.prepare("BEGIN IMMEDIATE");
			try {
				begin.run();
			} catch (error) {
				if (!isBusy(error)) throw error;
				await this.whileBusy(() => begin.run());
			}
			try {
				const result = await this.insideTransaction.run(this, fn);
				client.prepare("COMMIT").run();
				return result;
			} catch (error) {
				if (client.inTransaction) client.prepare("ROLLBACK").run();
				throw error;
			}
		} finally {
			this.release();
		}
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

	/** Retries `attempt` while another connection holds the lock, pausing 1–20 ms, up to the busy timeout. */
	private async whileBusy<T>(attempt: () => T | Promise<T>): Promise<T> {
		const deadline = Date.now() + this.busyTimeoutMs;
		for (let retry = 0; ; retry++) {
			try {
				return await attempt();
			} catch (error) {
				if (!isBusy(error) || Date.now() >= deadline) throw error;
				await sleep(Math.min(20, 2 ** retry) * (0.5 + Math.random()));
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
