import { AsyncLocalStorage } from "node:async_hooks";
import { As2Error } from "@as2kit/core";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type * as schema from "./schema.ts";

export type Db = NodePgDatabase<typeof schema>;

/** Runs SQL through `db` and resolves to its result. */
export type Exec = <T>(op: (db: Db) => Promise<T>) => Promise<T>;

/**
 * How a repository reaches the database. `run` is for one statement (atomic by itself) or
 * reads; `atomic` for several statements that must commit together: it joins the transaction
 * that is open, or opens one of its own.
 */
export interface Runner {
	run: Exec;
	atomic: Exec;
}

/**
 * The pool's drizzle database and the transactions opened on it. Transactions run at READ
 * COMMITTED, PostgreSQL's default: the port is built for it — state changes are conditional
 * updates (`messages.transition`, `markNotified`, `claimPeriod`), claims lock with `FOR UPDATE
 * SKIP LOCKED`, counters are single upserts — so nothing needs a serializable snapshot or the
 * retries it would bring. Where the service counts and then inserts (plan limits), the count
 * takes a transaction-scoped advisory lock (repositories/plan-limit-lock.ts).
 */
export class PgConnection {
	private readonly insideTransaction = new AsyncLocalStorage<PgConnection>();

	constructor(readonly db: Db) {}

	/** Statements outside any transaction, each on a pooled connection. */
	readonly root: Runner = {
		run: (op) => {
			if (this.insideTransaction.getStore() === this) {
				// The root store inside a transaction would write outside it, on another connection.
				throw new Error("storage-pg: the root store was used inside a transaction; use the transaction's store");
			}
			return translate(() => op(this.db));
		},
		atomic: (op) => this.transaction((tx) => translate(() => op(tx))),
	};

	/** Runs `fn` in one transaction on one pooled connection; the runner it is given stays inside it. */
	async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
		return translate(() =>
			this.db.transaction((tx) => this.insideTransaction.run(this, () => fn(tx as unknown as Db))),
		);
	}

	/** The runner of an open transaction: both kinds of call are statements inside it. */
	static inside(tx: Db): Runner {
		const exec: Exec = (op) => translate(() => op(tx));
		return { run: exec, atomic: exec };
	}
}

/** The PostgreSQL error under drizzle's DrizzleQueryError, if any. */
function pgError(error: unknown): { code?: string; table?: string; constraint?: string; detail?: string } | null {
	for (let e = error as { cause?: unknown; code?: unknown } | undefined, depth = 0; e && depth < 4; depth++) {
		if (typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code)) return e as { code: string };
		e = e.cause as typeof e;
	}
	return null;
}

/**
 * Unique violations (SQLSTATE 23505) become As2Error("CONFLICT") with `details.target` in the
 * form storage-sqlite gives (`users.email`, `partners.tenant_id, partners.as2_id`), read from
 * the error's table and the columns of its detail (`Key (email)=(…) already exists.`).
 */
async function translate<T>(op: () => Promise<T>): Promise<T> {
	try {
		return await op();
	} catch (error) {
		const pg = pgError(error);
		if (pg?.code === "23505") {
			const columns = /^Key \((.+?)\)=/.exec(pg.detail ?? "")?.[1]?.split(", ") ?? [pg.constraint ?? "unknown"];
			const target = columns.map((column) => `${pg.table ?? "unknown"}.${column.replaceAll('"', "")}`).join(", ");
			throw new As2Error("CONFLICT", `unique constraint on ${target}`, { details: { target }, cause: error });
		}
		throw error;
	}
}
