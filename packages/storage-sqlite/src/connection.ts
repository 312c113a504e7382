import { AsyncLocalStorage } from "node:async_hooks";
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
 */
export class SqliteConnection {
	private locked = false;
	private readonly waiters: Array<() => void> = [];
	private readonly insideTransaction = new AsyncLocalStorage<SqliteConnection>();

	constructor(readonly db: Db) {}

	/** A statement outside any transaction. */
	readonly run: Exec = async (op) => {
		if (this.insideTransaction.getStore() === this) {
			// Waiting here would deadlock: the caller holds the lock it waits for.
			throw new Error("storage-sqlite: the root store was used inside a transaction; use the transaction's store");
		}
		if (!this.locked) return translate(() => op(this.db));
		await this.acquire();
		try {
			return translate(() => op(this.db));
		} finally {
			this.release();
		}
	};

	/** A statement inside the transaction that holds the lock. */
	readonly runInTransaction: Exec = async (op) => translate(() => op(this.db));

	async transaction<T>(fn: () => Promise<T>): Promise<T> {
		if (this.insideTransaction.getStore() === this) return fn();
		await this.acquire();
		try {
			// IMMEDIATE takes the write lock up front, so two processes on one file cannot both
			// read and then fail to upgrade (SQLITE_BUSY inside the transaction).
			this.db.$client.exec("BEGIN IMMEDIATE");
			try {
				const result = await this.insideTransaction.run(this, fn);
				this.db.$client.exec("COMMIT");
				return result;
			} catch (error) {
				if (this.db.$client.inTransaction) this.db.$client.exec("ROLLBACK");
				throw error;
			}
		} finally {
			this.release();
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
