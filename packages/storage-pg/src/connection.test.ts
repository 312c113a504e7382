/**
 * The transaction of connection.ts on the wire: BEGIN goes out with the first statement,
 * statements sent together go out in one write (TransactionWire), and every way into a
 * transaction runs inside it.
 */
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PgConnection, type Runner } from "./connection.ts";
import { writeCountingPool } from "./write-counting-pool.test-support.ts";

/** The test PostgreSQL's maintenance URL (test/pg/global-setup.ts); null only outside CI without one. */
const url = inject("pgUrl");

describe.skipIf(url === null)("PgConnection transactions", () => {
	let pool: pg.Pool;
	let connection: PgConnection;
	let writesOf: (fn: () => Promise<unknown>) => Promise<number>;

	beforeAll(() => {
		({ pool, writesOf } = writeCountingPool(url ?? ""));
		connection = new PgConnection(pool);
	});
	afterAll(() => pool.end());

	const transactionId = (runner: Runner) =>
		runner.query<{ id: string }>("select txid_current()::text as id", []).then(([row]) => row?.id);

	it("writes BEGIN with the first statement: two statements and COMMIT are three writes, one transaction", async () => {
		let ids: (string | undefined)[] = [];
		const count = await writesOf(() =>
			connection.transaction(async (runner) => {
				ids = [await transactionId(runner), await transactionId(runner)];
			}),
		);
		expect(count).toBe(3);
		expect(ids[0]).toBeDefined();
		expect(ids[1]).toBe(ids[0]);
	});

	it("sends neither BEGIN nor COMMIT for a transaction that runs no statement", async () => {
		expect(await writesOf(() => connection.transaction(async () => "nothing"))).toBe(0);
	});

	it("runs drizzle's statements of `atomic`, from the root and inside a transaction, in one transaction", async () => {
		const idsOf = (runner: Runner) =>
			runner.atomic(async (db) => {
				const first = await db.execute<{ id: string }>(sql`select txid_current()::text as id`);
				const second = await db.execute<{ id: string }>(sql`select txid_current()::text as id`);
				return [first.rows[0]?.id, second.rows[0]?.id];
			});
		const [a, b] = await idsOf(connection.root);
		expect(a).toBeDefined();
		expect(b).toBe(a);
		const [c, d, e] = await connection.transaction(async (runner) => [
			await transactionId(runner),
			...(await idsOf(runner)),
		]);
		expect(c).toBeDefined();
		expect([d, e]).toEqual([c, c]);
	});

	it("rolls back when a statement fails, the first one too, and the connection serves the next transaction", async () => {
		const divideByZero = (runner: Runner) => runner.query("select 1 / 0", []);
		await expect(connection.transaction(divideByZero)).rejects.toThrow(/division by zero/);
		const setting = connection.transaction(async (runner) => {
			await runner.query("select set_config('as2kit.probe', 'not rolled back', false)", []);
			await divideByZero(runner);
		});
		await expect(setting).rejects.toThrow(/division by zero/);
		const [row] = await connection.transaction((runner) =>
			runner.query<{ probe: string | null }>("select current_setting('as2kit.probe', true) as probe", []),
		);
		expect(row?.probe ?? "").toBe("");
	});

	/** A scratch table of this file's connection, gone when it disconnects. */
	async function scratchTable(): Promise<string> {
		await pool.query("create temporary table if not exists wire_probe (id text primary key)");
		await pool.query("truncate wire_probe");
		return "wire_probe";
	}
	const insert = (runner: Runner, id: string) => runner.query("insert into wire_probe (id) values ($1)", [id]);
	const stored = async () =>
		(await pool.query<{ id: string }>("select id from wire_probe order by id")).rows.map((row) => row.id);

	it("writes the statements sent together in one write: BEGIN and three inserts, then COMMIT, are two writes", async () => {
		await scratchTable();
		const count = await writesOf(() =>
			connection.transaction((runner) => Promise.all([insert(runner, "a"), insert(runner, "b"), insert(runner, "c")])),
		);
		expect(count).toBe(2);
		expect(await stored()).toEqual(["a", "b", "c"]);
	});

	it("runs statements sent together in the order they were sent: a later one sees an earlier one's row", async () => {
		await scratchTable();
		const [, seen] = await connection.transaction((runner) =>
			Promise.all([
				insert(runner, "first"),
				runner.query<{ n: number }>("select count(*)::int as n from wire_probe where id = 'first'", []),
			]),
		);
		expect(seen).toEqual([{ n: 1 }]);
	});

	it("rejects with the first failing statement's error, translated, and rolls back every statement sent with it", async () => {
		await scratchTable();
		await connection.transaction((runner) => insert(runner, "taken"));
		const outcome = connection.transaction(async (runner) => {
			const sent = [insert(runner, "new"), insert(runner, "taken"), insert(runner, "after")];
			// The caller sees each statement's own error: the later ones are refused by the aborted transaction.
			const settled = await Promise.allSettled(sent);
			expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "rejected"]);
			expect(String((settled[2] as PromiseRejectedResult).reason)).toMatch(/current transaction is aborted/);
			return "done";
		});
		await expect(outcome).rejects.toMatchObject({ code: "CONFLICT", details: { target: "wire_probe.id" } });
		expect(await stored()).toEqual(["taken"]);
	});

	it("rejects with the error of the first statement written, not the refusal of a statement behind it that settled first", async () => {
		await scratchTable();
		await connection.transaction((runner) => insert(runner, "taken"));
		// The first statement carries BEGIN, so its answer reaches its caller a few microtasks after
		// the refusal of the statement behind it: a body of Promise.all rejects with that refusal.
		const outcome = connection.transaction((runner) => Promise.all([insert(runner, "taken"), insert(runner, "next")]));
		await expect(outcome).rejects.toMatchObject({ code: "CONFLICT", details: { target: "wire_probe.id" } });
		expect(await stored()).toEqual(["taken"]);
	});

	it("rejects with the first statement's error, not a refused Bind of a statement prepared behind it (26000)", async () => {
		await scratchTable();
		await connection.transaction((runner) => insert(runner, "taken"));
		// A text new to the connection, used twice behind the failure: node-postgres writes its Parse
		// once and only a Bind the second time; the Parse is refused in the aborted transaction, and
		// so is the Bind, as "prepared statement … does not exist" (26000), not 25P02. Awaited first,
		// that refusal is what the body rejects with (the conformance test "message steps - settle
		// whose attempt's number exists …" met it through stepsByCalls).
		const fresh = `insert into wire_probe (id) values ($1) -- ${Math.random()}`;
		const outcome = connection.transaction(async (runner) => {
			const failing = insert(runner, "taken");
			const first = runner.query(fresh, ["x"]);
			const second = runner.query(fresh, ["y"]);
			failing.catch(() => {});
			first.catch(() => {});
			await second;
		});
		await expect(outcome).rejects.toMatchObject({ code: "CONFLICT", details: { target: "wire_probe.id" } });
		expect(await stored()).toEqual(["taken"]);
		// The connection (the pool's only one) prepares the text again: its refused Parse left no trace.
		await connection.transaction((runner) => runner.query(fresh, ["z"]));
		await connection.root.query(fresh, ["w"]);
		expect(await stored()).toEqual(["taken", "w", "z"]);
	});

	it("runs a drizzle statement of a transaction once: drizzle's queries run again on every `then`", async () => {
		await scratchTable();
		await connection.transaction((runner) =>
			runner.run((db) => db.execute(sql`insert into wire_probe (id) values ('once')`)),
		);
		expect(await stored()).toEqual(["once"]);
	});

	it("rejects at COMMIT with a failed statement's error though its caller did not wait for it", async () => {
		await scratchTable();
		const outcome = connection.transaction(async (runner) => {
			await insert(runner, "kept?");
			insert(runner, "bad\u0000").catch(() => {});
			return "returned";
		});
		await expect(outcome).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
		expect(await stored()).toEqual([]);
	});

	it("refuses a statement sent after its transaction ended: it would run outside it", async () => {
		await scratchTable();
		let kept: Runner | null = null;
		await connection.transaction(async (runner) => {
			kept = runner;
			await insert(runner, "inside");
		});
		await expect(insert(kept!, "outside")).rejects.toThrow(/after its body settled/);
		expect(await stored()).toEqual(["inside"]);
	});

	it("rejects with the last statement's own error when it fails, not a refusal, and rolls back the statements before it", async () => {
		await scratchTable();
		await connection.transaction((runner) => insert(runner, "taken"));
		// The transaction's last statements, sent together, the failing one written last: its answer
		// comes after the others' and before COMMIT's, which PostgreSQL answers with ROLLBACK.
		const outcome = connection.transaction(async (runner) => {
			await insert(runner, "first");
			await Promise.all([insert(runner, "second"), insert(runner, "taken")]);
		});
		await expect(outcome).rejects.toMatchObject({ code: "CONFLICT", details: { target: "wire_probe.id" } });
		expect(await stored()).toEqual(["taken"]);
		// The connection is out of the failed transaction: the next one commits.
		await connection.transaction((runner) => insert(runner, "next"));
		expect(await stored()).toEqual(["next", "taken"]);
	});

	it("rejects with COMMIT's error when COMMIT fails, and leaves nothing of the transaction", async () => {
		// A deferred foreign key is checked at COMMIT: every statement succeeds, COMMIT does not.
		await pool.query("create temporary table if not exists wire_parent (id text primary key)");
		await pool.query(`create temporary table if not exists wire_child (
			id text primary key,
			parent text references wire_parent (id) deferrable initially deferred
		)`);
		await pool.query("truncate wire_child, wire_parent");
		const outcome = connection.transaction(async (runner) => {
			await runner.query("insert into wire_parent (id) values ('kept?')", []);
			await runner.query("insert into wire_child (id, parent) values ('orphan', 'missing')", []);
			return "returned";
		});
		await expect(outcome).rejects.toMatchObject({ code: "23503" });
		const left = await pool.query(
			"select (select count(*) from wire_parent)::int as parents, (select count(*) from wire_child)::int as children",
		);
		expect(left.rows).toEqual([{ parents: 0, children: 0 }]);
	});

	it("rejects when the connection dies before COMMIT is answered, leaves nothing, and the pool opens another", async () => {
		// A table of its own, not a temporary one: the killed connection's temporary tables go with it.
		const table = `wire_probe_killed_${process.pid}`;
		await pool.query(`create table if not exists ${table} (id text primary key)`);
		const other = new pg.Client({ connectionString: url ?? "" });
		await other.connect();
		try {
			const outcome = connection.transaction(async (runner) => {
				const [backend] = await runner.query<{ pid: number }>("select pg_backend_pid() as pid", []);
				await runner.query(`insert into ${table} (id) values ('lost')`, []);
				// Ended before this body settles (the call waits for the backend's exit, 60 s at most):
				// COMMIT goes to a connection that is gone.
				await other.query("select pg_terminate_backend($1, 60000)", [backend!.pid]);
				return "returned";
			});
			await expect(outcome).rejects.toThrow();
			const left = await pool.query(`select count(*)::int as n from ${table}`);
			expect(left.rows).toEqual([{ n: 0 }]);
		} finally {
			await pool.query(`drop table if exists ${table}`);
			await other.end();
		}
	});
});
