import { createHash } from "node:crypto";
import { As2Error, isAs2Error } from "@as2kit/core";
import { type TransactionChecks, transactionChecks } from "@as2kit/core/store";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import type pg from "pg";
import type { AutocommitLane } from "./autocommit-lane.ts";
import { causeChain } from "./cause-chain.ts";
import * as schema from "./schema.ts";
import { unavailable } from "./unavailable.ts";
import { describedQuery, type TextRow, undescribedQuery } from "./undescribed-query.ts";

export type Db = NodePgDatabase<typeof schema>;

/** Runs SQL through `db` and resolves to its result. */
export type Exec = <T>(op: (db: Db) => Promise<T>) => Promise<T>;

/**
 * How a repository reaches the database. `run` is for one statement (atomic by itself) or
 * reads; `atomic` for several statements that must commit together: it joins the transaction
 * that is open, or opens one of its own. `query` runs one plain SQL statement (`$1` …
 * parameters) as a named prepared statement, for the statements every message runs several
 * times: no drizzle building, and PostgreSQL parses and plans it once per connection. With
 * `decode`, for a statement whose column list the caller wrote, its result is not described:
 * each row comes as its columns' text, in the order written (undescribed-query.ts).
 */
export interface Runner {
	run: Exec;
	atomic: Exec;
	query<R>(text: string, values: readonly unknown[], decode?: (row: TextRow) => R): Promise<R[]>;
	/** In a transaction, its last calls: COMMIT goes with their statements (As2Store.commitWith). */
	commitWith?(calls: readonly (Promise<unknown> | undefined)[]): Promise<void>;
}

/**
 * The pool, its drizzle database, and the transactions opened on it. Transactions run at READ
 * COMMITTED, PostgreSQL's default: the port is built for it — state changes are conditional
 * updates (`messages.transition`, `markNotified`, `claimPeriod`), claims lock with `FOR UPDATE
 * SKIP LOCKED`, counters are single upserts — so nothing needs a serializable snapshot or the
 * retries it would bring. Where the service counts and then inserts (plan limits), the count
 * takes a transaction-scoped advisory lock (repositories/plan-limit-lock.ts).
 */
export class PgConnection {
	/** One drizzle database per pooled connection, made when the connection first runs a transaction. */
	private readonly onClient = new WeakMap<pg.PoolClient, Db>();
	readonly db: Db;

	constructor(
		private readonly pool: pg.Pool,
		/** The root store used inside a transaction's body fails, when on (`transactionChecks`). */
		private readonly checks: TransactionChecks = transactionChecks(false),
		/** Root statements' connection, shared by concurrent callers (autocommit-lane.ts). */
		private readonly lane: AutocommitLane | null = null,
	) {
		this.db = drizzle(pool, { schema });
	}

	/**
	 * Statements outside any transaction: drizzle's (`run`: lists, searches, reads of any length)
	 * each on a pooled connection; the prepared ones (`query`: single-row writes and key reads)
	 * on the shared connection when there is one (autocommit-lane.ts), else on a pooled one.
	 */
	readonly root: Runner = {
		run: (op) => {
			this.refuseInsideBody();
			return translate(() => op(this.db));
		},
		atomic: (op) => this.transaction((runner) => runner.atomic(op)),
		query: (text, values, decode) => {
			this.refuseInsideBody();
			const pooled = () => namedQuery(this.pool, text, values, decode);
			const lane = this.lane;
			if (!lane) return translate(pooled);
			return translate(() => lane.run((client) => namedQuery(client, text, values, decode), pooled));
		},
	};

	/**
	 * Runs `fn` in one transaction on one pooled connection, with the runner that stays inside
	 * it. BEGIN and COMMIT are ours rather than drizzle's so that plain queries (`Runner.query`)
	 * reach the transaction's connection too. The runner is the only way in: BEGIN is written
	 * with the first statement that goes through it, and statements sent together in one write
	 * (TransactionWire).
	 */
	async transaction<T>(fn: (runner: Runner) => Promise<T>): Promise<T> {
		// A transaction of the root store inside another's body would commit apart from it (a
		// nested one joins through the transaction's store, create-store.ts).
		this.refuseInsideBody();
		const client = await this.pool.connect();
		let broken = false;
		// pg-pool listens for a client's 'error' only while it is idle: one that dies while checked
		// out (a restart, a dropped connection, idle_in_transaction_session_timeout) would emit it
		// with nobody listening and end the process. Its queries fail anyway; it must not be reused.
		const onError = () => {
			broken = true;
		};
		client.on("error", onError);
		const wire = new TransactionWire(client);
		try {
			let db = this.onClient.get(client);
			if (!db) {
				db = drizzle(client, { schema });
				this.onClient.set(client, db);
			}
			const inside = db;
			const runner: Runner = {
				run: (op) => translate(() => wire.before(() => op(inside))),
				atomic: (op) => translate(() => wire.before(() => op(inside))),
				query: (text, values, decode) => translate(() => wire.with(() => namedQuery(client, text, values, decode))),
				commitWith: (calls) => wire.commitWith(calls),
			};
			let result: T;
			try {
				result = await translate(() => this.checks.inside(() => fn(runner)));
			} finally {
				// The port's rule (As2Store.transaction): the body awaited every call it made, so no
				// statement of this transaction is still to come; one that came would follow COMMIT.
				wire.end();
			}
			await translate(() => wire.commit());
			return result;
		} catch (error) {
			// A connection whose ROLLBACK fails is in an unknown state: the pool must not hand it out again.
			await wire.rollback().catch(() => {
				broken = true;
			});
			if (wire.committedDespiteFailure) {
				// A call of the last group failed without a statement failing, or wrote after COMMIT:
				// the others' statements are committed. The caller broke commitWith's contract.
				throw new Error("storage-pg: a call given to commitWith failed after its transaction committed", {
					cause: error,
				});
			}
			throw translated(await wire.causeOf(error));
		} finally {
			wire.end();
			client.off("error", onError);
			client.release(broken);
		}
	}

	/** The root store inside a transaction's body would run outside it, on another pooled connection. */
	private refuseInsideBody(): void {
		if (this.checks.inBody()) {
			throw new Error("storage-pg: the root store was used inside a transaction; use the transaction's store");
		}
	}
}

/**
 * A transaction on the wire. Its BEGIN goes out with its first statement rather than in a round
 * trip of its own, and the statements sent in one turn of the event loop (a caller's
 * `Promise.all` of port calls that do not depend on each other) go out in one write: the pool's
 * clients pipeline (`pipeline: true`, create-store.ts), so a statement goes out without waiting
 * for the answer to the one before, and the socket is corked until the next tick. On loopback
 * each write costs the sender a `writev` and PostgreSQL a wake-up (performance-storage.md,
 * "PostgreSQL (stop 27)", "PostgreSQL round trips (stop 28)"). A transaction that runs no
 * statement sends neither BEGIN nor COMMIT. PostgreSQL runs pipelined statements in the order
 * they were written, so each sees the effect of every one before it.
 *
 * BEGIN fails only where the statement behind it fails too (a dead connection, or one left in a
 * failed transaction, which answers every statement with 25P02), so the statement never runs
 * outside the transaction it was meant for; its caller sees BEGIN's error, and so does COMMIT.
 * A statement that fails aborts the transaction: PostgreSQL answers the ones behind it with
 * 25P02 and COMMIT with ROLLBACK, and the transaction rejects with the first statement's error
 * even when its caller did not wait for it. No statement goes out once the body settled: the
 * port's rule is that it awaits every call it makes (As2Store.transaction), so a statement
 * after that is one that would follow COMMIT and run outside the transaction.
 */
class TransactionWire {
	private begun: Promise<unknown> | null = null;
	private corked = false;
	private ended = false;
	private committed = false;
	/** The failed statement written first: the one that aborted the transaction. */
	private firstError: { index: number; error: unknown } | null = null;
	/** Statements written so far; a statement's place among them orders the failures. */
	private written = 0;
	/** Each statement's outcome noted, so that COMMIT's ROLLBACK can wait for every answer before it. */
	private readonly noted: Promise<unknown>[] = [];
	/** Statements written and not answered yet, BEGIN apart. */
	private unanswered = 0;
	/** drizzle statements of `before` not answered yet (written or still to be built). */
	private drizzling = 0;
	/** The last group handed over (commitWith): COMMIT goes in its write when it is ready. */
	private lastGroup: LastGroup | null = null;
	/** COMMIT written with the last group, and its answer. */
	private earlyCommit: Promise<pg.QueryResult> | null = null;
	/** COMMIT written early was answered COMMIT, yet the body failed (a contract broken). */
	committedDespiteFailure = false;

	constructor(private readonly client: pg.PoolClient) {}

	/** Runs `send` (which must write its statement synchronously) behind BEGIN, in this tick's write. */
	with<T>(send: () => Promise<T>): Promise<T> {
		this.refuseEnded();
		this.cork();
		if (this.begun) return this.note(send());
		this.begun = this.note(this.client.query("begin"), false);
		// Both settle: BEGIN's answer comes first, so its error is the one the caller sees.
		return Promise.all([this.begun, this.note(send())]).then(([, result]) => result);
	}

	/** Runs `op` (drizzle, which writes after a few ticks) once BEGIN has been answered. */
	async before<T>(op: () => Promise<T>): Promise<T> {
		this.refuseEnded();
		this.begun ??= this.client.query("begin");
		// drizzle builds and writes its statement a few microtasks after `op` is called, past the
		// wire's checks: until it is answered, COMMIT does not go early (commitEarly).
		this.drizzling++;
		try {
			await this.begun;
			this.refuseEnded();
			// Promise.resolve: drizzle's queries are thenables that run again on every `then`.
			return await this.note(Promise.resolve(op()));
		} finally {
			this.drizzling--;
		}
	}

	/**
	 * The body's last calls (As2Store.commitWith): COMMIT is written in the write that carries
	 * their statements, at the end of this turn of the event loop, when that is safe; otherwise
	 * after they settle, as without it. Settles as the calls do, the first failure first.
	 */
	commitWith(calls: readonly (Promise<unknown> | undefined)[]): Promise<void> {
		this.refuseEnded();
		const group = new LastGroup(calls);
		if (this.begun && this.lastGroup === null) {
			this.lastGroup = group;
			// Corked: the turn's write is pending, and its tick writes COMMIT before uncorking it.
			// Not corked: the calls write in later microtasks of this turn (an event's id sequence
			// is a resolved promise), or nothing; this tick runs after them, in their cork.
			if (!this.corked) process.nextTick(() => this.commitEarly());
		}
		return group.settled;
	}

	/**
	 * COMMIT in the last group's write, when nothing of the group is still to be written: every
	 * call not yet settled has a statement unanswered (the transaction's earlier statements were
	 * all awaited by the body, so the unanswered ones are the group's), no drizzle statement is
	 * in flight (it is written past the wire's checks), and no call failed. A call that has written nothing yet (waiting for a
	 * sequence's DDL, a read elsewhere) leaves fewer statements than calls: COMMIT then waits
	 * for the body as usual. What the count cannot see, a call that will write again after an
	 * answer, is the caller's to avoid (As2Store.commitWith); its statement is refused.
	 */
	private commitEarly(): void {
		const group = this.lastGroup;
		if (group === null || this.earlyCommit || this.ended) return;
		this.lastGroup = null;
		if (group.failed || this.drizzling > 0 || this.unanswered < group.pending) return;
		this.cork();
		this.ended = true;
		this.earlyCommit = this.client.query("commit");
		// Awaited by commit() or rollback(); a connection lost before its answer fails both.
		this.earlyCommit.catch(() => {});
	}

	/**
	 * The error a failed transaction rejects with: a statement refused because an earlier one
	 * aborted the transaction (25P02, or 26000 for a Bind whose Parse was refused) gives way to
	 * that earlier one. Callers of statements sent
	 * together see their failures in the order their promises settle, which is not the order
	 * written (the first statement's answer waits for BEGIN's too), so the body may well reject
	 * with the refusal; its cause is what the caller needs (a unique violation is CONFLICT).
	 */
	async causeOf(error: unknown): Promise<unknown> {
		await Promise.all(this.noted);
		const code = pgError(error)?.code;
		return (code === ABORTED_TRANSACTION || code === UNPREPARED) && this.firstError ? this.firstError.error : error;
	}

	/** Notes the outcome of a statement written now, in the order written; BEGIN is not `counted` as unanswered. */
	private note<T>(statement: Promise<T>, counted = true): Promise<T> {
		const index = this.written++;
		if (counted) this.unanswered++;
		const answered = () => {
			if (counted) this.unanswered--;
		};
		this.noted.push(
			statement.then(answered, (error: unknown) => {
				answered();
				if (this.firstError === null || index < this.firstError.index) this.firstError = { index, error };
			}),
		);
		return statement;
	}

	/** COMMIT, when BEGIN went out; PostgreSQL answers ROLLBACK when a statement failed. */
	async commit(): Promise<void> {
		if (!this.begun) return;
		this.ended = true;
		await this.begun;
		const answer = await (this.earlyCommit ?? this.client.query("commit"));
		this.committed = true;
		if (answer.command === "ROLLBACK") {
			await Promise.all(this.noted);
			throw this.firstError?.error ?? new Error("storage-pg: the transaction was rolled back");
		}
	}

	/** ROLLBACK, when BEGIN went out and COMMIT was not answered. */
	async rollback(): Promise<void> {
		if (!this.begun || this.committed) return;
		this.ended = true;
		if (this.earlyCommit) {
			// COMMIT went out with the last group: it ends the transaction either way.
			const answer = await this.earlyCommit;
			this.committed = true;
			if (answer.command !== "ROLLBACK") this.committedDespiteFailure = true;
			return;
		}
		await this.client.query("rollback");
	}

	/** No statement goes out from now on: the body settled, or the transaction ended. */
	end(): void {
		this.ended = true;
	}

	private cork(): void {
		if (this.corked) return;
		const stream = this.client.connection.stream;
		stream.cork();
		this.corked = true;
		// Statements sent in later microtasks of this turn (a caller's Promise.all) join this write.
		process.nextTick(() => {
			// The last group's statements are in this write: COMMIT joins them (commitWith).
			if (this.lastGroup) this.commitEarly();
			this.corked = false;
			stream.uncork();
		});
	}

	private refuseEnded(): void {
		// A statement after COMMIT or ROLLBACK would run outside the transaction it belongs to.
		if (this.ended) {
			throw new Error(
				"storage-pg: a call on a transaction's store after its body settled; it belongs to no transaction",
			);
		}
	}
}

/** The calls given to commitWith: how many are still running, whether one failed, and all of them settled. */
class LastGroup {
	pending = 0;
	failed = false;
	readonly settled: Promise<void>;

	constructor(calls: readonly (Promise<unknown> | undefined)[]) {
		// One reaction per call, as the service's `together` (issue #20: promises a message).
		this.settled = new Promise<void>((resolve, reject) => {
			let first: { error: unknown } | null = null;
			let waiting = 1;
			const done = () => {
				if (--waiting > 0) return;
				if (first) reject(first.error);
				else resolve();
			};
			for (const call of calls) {
				if (!call) continue;
				waiting++;
				this.pending++;
				call.then(
					() => {
						this.pending--;
						done();
					},
					(error: unknown) => {
						this.pending--;
						this.failed = true;
						first ??= { error };
						done();
					},
				);
			}
			done();
		});
	}
}

const statementNames = new Map<string, string>();

/**
 * One statement as a prepared statement named after its text (node-postgres prepares a name
 * once per connection); with `decode`, run without Describe. Writes its statement synchronously
 * (TransactionWire.with relies on it).
 */
async function namedQuery<R>(
	client: pg.Pool | pg.ClientBase,
	text: string,
	values: readonly unknown[],
	decode?: (row: TextRow) => R,
): Promise<R[]> {
	let name = statementNames.get(text);
	if (name === undefined) {
		name = `as2kit_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
		statementNames.set(text, name);
	}
	return decode ? undescribedQuery(client, name, text, values, decode) : describedQuery(client, name, text, values);
}

/** The PostgreSQL error under drizzle's DrizzleQueryError, if any. */
function pgError(error: unknown): { code?: string; table?: string; constraint?: string; detail?: string } | null {
	for (const e of causeChain(error)) {
		if (typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code)) return e as { code: string };
	}
	return null;
}

/** SQLSTATE 25P02: a statement refused because an earlier one aborted its transaction. */
const ABORTED_TRANSACTION = "25P02";
/**
 * SQLSTATE 26000: a Bind of a statement whose Parse, written just before it in the same write,
 * was refused by the aborted transaction (node-postgres writes a named statement's Parse once).
 */
const UNPREPARED = "26000";

/**
 * Text PostgreSQL cannot take: NUL (U+0000) in a text value or parameter is 22021 (invalid
 * byte sequence for UTF8), and in a json value it would have to become text 22P05
 * (untranslatable character). SQLite stores both; here they are a 422 naming `request`, so
 * that a request answers 4xx and background work fails cleanly, never a 500.
 */
const UNSTORABLE_TEXT = new Set(["22021", "22P05"]);

/**
 * Unique violations (SQLSTATE 23505) become As2Error("CONFLICT") with `details.target` in the
 * form storage-sqlite gives (`users.email`, `partners.tenant_id, partners.as2_id`), read from
 * the error's table and the columns of its detail (`Key (email)=(…) already exists.`); text the
 * database cannot store becomes As2Error("VALIDATION_FAILED") (UNSTORABLE_TEXT); a database
 * that cannot serve now (a connection cut or refused) As2Error("SERVICE_UNAVAILABLE") (unavailable.ts).
 */
async function translate<T>(op: () => Promise<T>): Promise<T> {
	try {
		return await op();
	} catch (error) {
		throw translated(error);
	}
}

function translated(error: unknown): unknown {
	// Translated already, by a statement of the transaction this one wraps.
	if (isAs2Error(error)) return error;
	const down = unavailable(error);
	if (down) return down;
	const pg = pgError(error);
	if (pg?.code !== undefined && UNSTORABLE_TEXT.has(pg.code)) {
		const problem = "holds a character the database cannot store (NUL, U+0000)";
		return new As2Error("VALIDATION_FAILED", `the request ${problem}`, {
			fieldErrors: { request: [problem] },
			cause: error,
		});
	}
	if (pg?.code === "23505") {
		const columns = /^Key \((.+?)\)=/.exec(pg.detail ?? "")?.[1]?.split(", ") ?? [pg.constraint ?? "unknown"];
		const target = columns.map((column) => `${pg.table ?? "unknown"}.${column.replaceAll('"', "")}`).join(", ");
		return new As2Error("CONFLICT", `unique constraint on ${target}`, { details: { target }, cause: error });
	}
	return error;
}
