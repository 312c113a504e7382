/**
 * The shared connection of the statements outside transactions (autocommit-lane.ts): one write
 * and one backend for the statements of a turn, each its own transaction, bounded in depth and
 * in wait, and a new connection after a dropped one.
 */
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { AutocommitLane, LANE_DEPTH } from "./autocommit-lane.ts";
import { countWrites } from "./write-counting-pool.test-support.ts";

/** The test PostgreSQL's maintenance URL (test/pg/global-setup.ts); null only outside CI without one. */
const url = inject("pgUrl");

describe.skipIf(url === null)("AutocommitLane", () => {
	/** Every client a lane opened, in order, and the writes to their sockets. */
	let opened: pg.Client[] = [];
	let writes = 0;
	let lanes: AutocommitLane[] = [];
	let other: pg.Client;

	const laneWith = (config: pg.ClientConfig = {}, idleMs?: number) => {
		const lane = new AutocommitLane(() => {
			const client = new pg.Client({ connectionString: url ?? "", pipeline: true, ...config });
			countWrites(client, () => {
				writes += 1;
			});
			opened.push(client);
			return client;
		}, idleMs);
		lanes.push(lane);
		return lane;
	};
	const query = <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) => {
		return (client: pg.Client) => client.query<R>(text, values).then((result) => result.rows);
	};
	const refused = () => Promise.reject(new Error("went to the pool"));
	const backendOf = (lane: AutocommitLane) =>
		lane.run(query<{ pid: number }>("select pg_backend_pid() as pid"), refused).then(([row]) => row?.pid);

	beforeAll(async () => {
		other = new pg.Client({ connectionString: url ?? "" });
		await other.connect();
	});
	afterEach(async () => {
		await Promise.all(lanes.map((lane) => lane.close()));
		lanes = [];
		opened = [];
	});
	afterAll(() => other.end());

	it("writes the statements several callers send in one turn in one write, run by one backend in order", async () => {
		const lane = laneWith();
		await backendOf(lane);
		const before = writes;
		const rows = await Promise.all(
			[1, 2, 3, 4, 5].map((n) =>
				lane.run(query<{ pid: number; n: number }>("select pg_backend_pid() as pid, $1::int as n", [n]), refused),
			),
		);
		expect(writes - before).toBe(1);
		expect(rows.map(([row]) => row?.n)).toEqual([1, 2, 3, 4, 5]);
		expect(new Set(rows.map(([row]) => row?.pid)).size).toBe(1);
		// A later turn's statement goes in a write of its own.
		await backendOf(lane);
		expect(writes - before).toBe(2);
		expect(opened).toHaveLength(1);
	});

	it("runs each statement in its own transaction: one that fails does not touch the next in the same write", async () => {
		const lane = laneWith();
		const [failed, next] = await Promise.allSettled([
			lane.run(query("select 1 / 0"), refused),
			lane.run(query<{ n: number }>("select 2 as n"), refused),
		]);
		expect(failed).toMatchObject({ status: "rejected", reason: { code: "22012" } });
		expect(next).toEqual({ status: "fulfilled", value: [{ n: 2 }] });
	});

	it(`sends a statement to the pool while ${LANE_DEPTH} wait on the lane, and the waiting ones run once the lock is free`, async () => {
		const lane = laneWith();
		await backendOf(lane);
		await other.query("begin");
		await other.query("select pg_advisory_xact_lock(4242)");
		// One statement waits for the lock; the others queue behind it on the same backend.
		const waiting = [lane.run(query("select pg_advisory_xact_lock(4242)"), refused)];
		for (let i = 1; i < LANE_DEPTH; i++) waiting.push(lane.run(query("select $1::int as n", [i]), refused));
		// Which way it goes, without writing a statement that would wait behind the lock.
		const way = lane.run(
			() => Promise.resolve("lane"),
			() => Promise.resolve("pool"),
		);
		await expect(way).resolves.toBe("pool");
		await other.query("commit");
		const answers = await Promise.all(waiting);
		expect(answers.at(-1)).toEqual([{ n: LANE_DEPTH - 1 }]);
		// Answered: the lane takes statements again.
		await expect(lane.run(query<{ n: number }>("select 7 as n"), refused)).resolves.toEqual([{ n: 7 }]);
	});

	it("ends a wait for a lock at the statement_timeout, and runs the statement behind it", async () => {
		const lane = laneWith({ statement_timeout: 200 });
		await other.query("begin");
		await other.query("select pg_advisory_xact_lock(4243)");
		try {
			const [waited, behind] = await Promise.allSettled([
				lane.run(query("select pg_advisory_xact_lock(4243)"), refused),
				lane.run(query<{ n: number }>("select 3 as n"), refused),
			]);
			// 57014: canceling statement due to statement timeout.
			expect(waited).toMatchObject({ status: "rejected", reason: { code: "57014" } });
			expect(behind).toEqual({ status: "fulfilled", value: [{ n: 3 }] });
		} finally {
			await other.query("commit");
		}
	});

	it("fails the statements of a connection that drops, and opens another for the next", async () => {
		const lane = laneWith();
		const pid = await backendOf(lane);
		const sleeping = lane.run(query("select pg_sleep(30)"), refused);
		// Bounded: the sleep reaches its backend within a few round trips.
		for (let i = 0; i < 200; i++) {
			const { rows } = await other.query("select 1 from pg_stat_activity where pid = $1 and query like '%pg_sleep%'", [
				pid,
			]);
			if (rows.length === 1) break;
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
		// The client emits 'error' (57P01, terminated) and then 'end'.
		const ended = new Promise((resolve) => (opened[0] as pg.Client).once("end", resolve));
		// Which answer comes first is the sockets' race: the sleep's failure is awaited from before
		// the termination, or an early one is an unhandled rejection (CI, stop 38). The terminating
		// statement answers 200 ms late, so the test meets that order every time.
		const failed = expect(sleeping).rejects.toMatchObject({ code: "57P01" });
		await other.query("select pg_terminate_backend($1), pg_sleep(0.2)", [pid]);
		await failed;
		await ended;
		const next = await backendOf(lane);
		expect(next).toBeTypeOf("number");
		expect(next).not.toBe(pid);
		expect(opened).toHaveLength(2);
	});

	it("keeps its connection while a statement runs, closes it once idle, and opens another for the next", async () => {
		const lane = laneWith({}, 20);
		const pid = await backendOf(lane);
		// Longer than the idle time, but not idle: the connection stays.
		await lane.run(query("select pg_sleep(0.1)"), refused);
		expect(opened).toHaveLength(1);
		await new Promise((resolve) => (opened[0] as pg.Client).once("end", resolve));
		const next = await backendOf(lane);
		expect(next).toBeTypeOf("number");
		expect(next).not.toBe(pid);
		expect(opened).toHaveLength(2);
	});

	it("ends its connection on close, and refuses statements after it", async () => {
		const lane = laneWith({ application_name: "as2kit-lane-close-test" });
		await backendOf(lane);
		await lane.close();
		// The backend leaves pg_stat_activity once it has exited, just after the socket closed: bounded.
		let left = 1;
		for (let i = 0; i < 200 && left > 0; i++) {
			if (i > 0) await new Promise((resolve) => setTimeout(resolve, 10));
			const { rows } = await other.query("select 1 from pg_stat_activity where application_name = $1", [
				"as2kit-lane-close-test",
			]);
			left = rows.length;
		}
		expect(left).toBe(0);
		await expect(backendOf(lane)).rejects.toThrow(/closed/);
	});
});
