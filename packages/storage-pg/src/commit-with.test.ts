/**
 * COMMIT written with a transaction's last statements (As2Store.commitWith, connection.ts's
 * TransactionWire.commitWith): in their write when every call of the group has its statement on
 * the wire, after the group otherwise; a failed statement fails the transaction either way.
 */
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PgConnection, type Runner } from "./connection.ts";
import { writeCountingPool } from "./write-counting-pool.test-support.ts";

/** The test PostgreSQL's maintenance URL (test/pg/global-setup.ts); null only outside CI without one. */
const url = inject("pgUrl");

describe.skipIf(url === null)("PgConnection transactions: COMMIT with the last statements", () => {
	let pool: pg.Pool;
	let connection: PgConnection;
	let writesOf: (fn: () => Promise<unknown>) => Promise<number>;

	beforeAll(() => {
		({ pool, writesOf } = writeCountingPool(url ?? ""));
		connection = new PgConnection(pool);
	});
	afterAll(() => pool.end());

	/** A scratch table of this file's connection, gone when it disconnects. */
	async function scratchTable(): Promise<void> {
		await pool.query("create temporary table if not exists last_probe (id text primary key)");
		await pool.query("truncate last_probe");
	}
	const insert = (runner: Runner, id: string) => runner.query("insert into last_probe (id) values ($1)", [id]);
	const stored = async () =>
		(await pool.query<{ id: string }>("select id from last_probe order by id")).rows.map((row) => row.id);
	const lastly = (runner: Runner, calls: readonly (Promise<unknown> | undefined)[]) => runner.commitWith!(calls);
	/** A turn of the event loop later: after this turn's write has gone out. */
	const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

	it("writes COMMIT with the last group: BEGIN and a statement, then two statements and COMMIT, are two writes", async () => {
		await scratchTable();
		const awaited = await writesOf(() =>
			connection.transaction(async (runner) => {
				await insert(runner, "a");
				await Promise.all([insert(runner, "b"), insert(runner, "c")]);
			}),
		);
		await scratchTable();
		const lastGroup = await writesOf(() =>
			connection.transaction(async (runner) => {
				await insert(runner, "a");
				return lastly(runner, [insert(runner, "b"), insert(runner, "c"), undefined]);
			}),
		);
		expect([awaited, lastGroup]).toEqual([3, 2]);
		expect(await stored()).toEqual(["a", "b", "c"]);
	});

	it("resolves with the body's value once COMMIT is answered", async () => {
		await scratchTable();
		const outcome = await connection.transaction(async (runner) => {
			await insert(runner, "a");
			await lastly(runner, [insert(runner, "b")]);
			return "done";
		});
		expect(outcome).toBe("done");
		expect(await stored()).toEqual(["a", "b"]);
	});

	it("rejects with the failing last statement's own error, and rolls back every statement of the transaction", async () => {
		await scratchTable();
		await connection.transaction((runner) => insert(runner, "taken"));
		const count = await writesOf(async () => {
			const outcome = connection.transaction(async (runner) => {
				await insert(runner, "first");
				return lastly(runner, [insert(runner, "second"), insert(runner, "taken"), insert(runner, "third")]);
			});
			await expect(outcome).rejects.toMatchObject({ code: "CONFLICT", details: { target: "last_probe.id" } });
		});
		// COMMIT went with the group (PostgreSQL answered it ROLLBACK): no ROLLBACK of its own.
		expect(count).toBe(2);
		expect(await stored()).toEqual(["taken"]);
		// The connection is out of the failed transaction: the next one commits.
		await connection.transaction((runner) => insert(runner, "next"));
		expect(await stored()).toEqual(["next", "taken"]);
	});

	it("rejects with the statement's error when the failing one is the group's first, not the refusal behind it", async () => {
		await scratchTable();
		await connection.transaction((runner) => insert(runner, "taken"));
		const outcome = connection.transaction(async (runner) => {
			await insert(runner, "first");
			return lastly(runner, [insert(runner, "taken"), insert(runner, "after")]);
		});
		await expect(outcome).rejects.toMatchObject({ code: "CONFLICT", details: { target: "last_probe.id" } });
		expect(await stored()).toEqual(["taken"]);
	});

	it("rejects when the body fails before the group's write goes out, and commits nothing", async () => {
		await scratchTable();
		const outcome = connection.transaction(async (runner) => {
			await insert(runner, "first");
			const last = lastly(runner, [insert(runner, "second")]);
			last.catch(() => {});
			throw new Error("the body changed its mind");
		});
		await expect(outcome).rejects.toThrow("the body changed its mind");
		expect(await stored()).toEqual([]);
	});

	it("waits for a call that has written nothing yet (another wait first): COMMIT goes after it, and it commits", async () => {
		await scratchTable();
		const count = await writesOf(() =>
			connection.transaction(async (runner) => {
				await insert(runner, "a");
				const late = (async () => {
					await nextTurn();
					await insert(runner, "late");
				})();
				return lastly(runner, [insert(runner, "b"), late]);
			}),
		);
		// BEGIN + a | b | late | COMMIT: COMMIT did not go with b, which would have committed without `late`.
		expect(count).toBe(4);
		expect(await stored()).toEqual(["a", "b", "late"]);
	});

	it("takes a call that writes a few microtasks later into the group's write (an event after its sequence)", async () => {
		await scratchTable();
		const ready = Promise.resolve();
		const count = await writesOf(() =>
			connection.transaction(async (runner) => {
				await insert(runner, "a");
				const soon = (async () => {
					await ready;
					await insert(runner, "soon");
				})();
				return lastly(runner, [soon, insert(runner, "b")]);
			}),
		);
		expect(count).toBe(2);
		expect(await stored()).toEqual(["a", "b", "soon"]);
	});

	// The contract (As2Store.commitWith): a call of the group writes at once and does not write
	// again after an answer. One that does finds COMMIT gone: its statement is refused, and the
	// transaction rejects saying so rather than resolving as if all of it had committed.
	it("refuses a statement a call of the group writes after an answer, and rejects: the contract was broken", async () => {
		await scratchTable();
		const outcome = connection.transaction(async (runner) => {
			await insert(runner, "a");
			const readThenWrite = (async () => {
				await insert(runner, "b");
				await insert(runner, "after the answer");
			})();
			return lastly(runner, [readThenWrite]);
		});
		await expect(outcome).rejects.toThrow(/commitWith failed after its transaction committed/);
		expect(await stored()).toEqual(["a", "b"]);
		await connection.transaction((runner) => insert(runner, "next"));
		expect(await stored()).toEqual(["a", "b", "next"]);
	});

	it("refuses a statement after the last group, on the transaction's runner: nothing runs outside it", async () => {
		await scratchTable();
		let kept: Runner | null = null;
		await connection.transaction(async (runner) => {
			kept = runner;
			await insert(runner, "a");
			return lastly(runner, [insert(runner, "b")]);
		});
		await expect(insert(kept!, "outside")).rejects.toThrow(/after its body settled/);
		expect(await stored()).toEqual(["a", "b"]);
	});
});
