/**
 * Every PostgreSQL connection of the built server dropped at once, as a restart or a failover of
 * the database does: the pool's, the shared one of the statements outside transactions
 * (storage-pg's autocommit-lane.ts) and the DDL one. The process must live on, answer what
 * failed with a clear status rather than crash or hang, and answer again once the database does.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgUrl } from "../pg/databases.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, register } from "./clients.ts";

describe("the built server on PostgreSQL when its connections drop", () => {
	let server: BuiltServer;
	beforeAll(async () => {
		// The professional plan's burst (200) and concurrency (25): the rounds below stay under them.
		server = await startBuiltServer({ store: "pg", env: { AS2_DEFAULT_PLAN: "professional" } });
	});
	afterAll(() => server?.stop());

	/** Terminates every backend connected to the server's database; how many there were. */
	const dropAll = async () => {
		const client = new pg.Client({ connectionString: pgUrl() ?? "" });
		await client.connect();
		try {
			const { rows } = await client.query<{ name: string }>(
				`select application_name as name, pg_terminate_backend(pid) from pg_stat_activity
				where datname = $1 and pid <> pg_backend_pid()`,
				[new URL(server.databaseUrl).pathname.slice(1)],
			);
			return rows.map((row) => row.name);
		} finally {
			await client.end();
		}
	};

	it("lives on, answers 503 while they are gone, never 500, and as before once they are back", async () => {
		const user = await register(server.base);
		// A list is drizzle's, on the pool; a message by id is a prepared statement, on the shared
		// connection. Three of each at once: both kinds of connection are open.
		const round = () =>
			Promise.all([
				...Array.from({ length: 3 }, () => call(server.base, "GET", "/v1/messages", { token: user.token })),
				...Array.from({ length: 3 }, () => call(server.base, "GET", "/v1/messages/msg_000001", { token: user.token })),
			]);
		const asBefore = [200, 200, 200, 404, 404, 404];
		const statusesOf = (answers: { status: number }[]) => answers.map((answer) => answer.status);
		expect(statusesOf(await round())).toEqual(asBefore);
		const dropped = await dropAll();
		expect(dropped).toContain("as2kit");
		expect(dropped).toContain("as2kit-lane");
		// Dropped again while rounds are in flight: some requests meet a connection as it dies.
		const answers: Awaited<ReturnType<typeof round>> = [];
		for (let i = 0; i < 5; i++) {
			const [inFlight] = await Promise.all([round(), dropAll()]);
			answers.push(...inFlight);
		}
		// Bounded: rounds until one is answered as before.
		let last: number[] = [];
		for (let i = 0; i < 50 && last.join() !== asBefore.join(); i++) {
			if (i > 0) await new Promise((resolve) => setTimeout(resolve, 20));
			const next = await round();
			answers.push(...next);
			last = statusesOf(next);
		}
		server.assertAlive();
		expect(last).toEqual(asBefore);
		// A request that met a dead connection is a temporary outage (503 SERVICE_UNAVAILABLE), never a 500.
		const failed = answers.filter((answer) => answer.status !== 200 && answer.status !== 404);
		expect(failed.map((answer) => `${answer.status} ${answer.json?.error?.code}`)).toEqual(
			failed.map(() => "503 SERVICE_UNAVAILABLE"),
		);
		// The log names what PostgreSQL said, not the statement's parameters (a session's token hash).
		expect(server.output()).not.toContain("params:");
		expect(server.output()).not.toMatch(/uncaught|unhandled/i);
	});
});
