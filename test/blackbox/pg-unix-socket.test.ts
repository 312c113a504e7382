/**
 * The built server on PostgreSQL through its Unix socket, as an instance on the database's
 * host connects (README, "Running several instances"): DATABASE_URL in the libpq form, the
 * socket's directory as `host`. Every other PostgreSQL test connects over loopback TCP. Its pool
 * is sized by DATABASE_POOL_SIZE, which concurrent requests do not exceed.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, pgUrl, type TestDatabase } from "../pg/databases.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, register } from "./clients.ts";

async function onMaintenance<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
	const client = new pg.Client({ connectionString: pgUrl() ?? "" });
	await client.connect();
	try {
		return await fn(client);
	} finally {
		await client.end();
	}
}

// The store is PostgreSQL whatever the project: vitest.config.ts runs this file in the
// PostgreSQL project only.
const POOL_SIZE = 2;

describe("the built server on PostgreSQL's Unix socket", () => {
	let database: TestDatabase;
	let server: BuiltServer;
	beforeAll(async () => {
		database = await createTestDatabase();
		const directory = await onMaintenance(async (client) => {
			const { rows } = await client.query<{ dirs: string }>(
				"select current_setting('unix_socket_directories') as dirs",
			);
			return rows[0]?.dirs.split(",")[0]?.trim() ?? "";
		});
		const url = new URL(database.url);
		url.searchParams.set("host", directory);
		// "sqlite" only keeps the harness from making a database of its own: DATABASE_URL decides.
		server = await startBuiltServer({
			store: "sqlite",
			env: { DATABASE_URL: url.toString(), DATABASE_POOL_SIZE: String(POOL_SIZE) },
		});
	});
	afterAll(async () => {
		await server?.stop();
		await database?.drop();
	});

	/** The instance's pooled connections (`as2kit`; the DDL pool is `as2kit-ddl`), by client port. */
	const sessions = () =>
		onMaintenance((client) =>
			client.query<{ port: number }>(
				"select coalesce(client_port, 0) as port from pg_stat_activity where datname = $1 and application_name = 'as2kit'",
				[new URL(database.url).pathname.slice(1)],
			),
		);

	it("registers a user with fetch, its connections all on the socket", async () => {
		expect((await call(server.base, "GET", "/health")).json).toEqual({ status: "ok" });
		const user = await register(server.base);
		expect(user.token).toMatch(/^sess_/);
		const open = await sessions();
		// client_port is -1 for a client on a Unix socket.
		expect(open.rows.length).toBeGreaterThan(0);
		expect(open.rows.map((row) => row.port)).toEqual(open.rows.map(() => -1));
	});

	it("keeps at most DATABASE_POOL_SIZE connections while 15 requests run at once", async () => {
		// Three tenants, five requests each: the free plan's limit of concurrent requests per tenant.
		const users = await Promise.all([register(server.base), register(server.base), register(server.base)]);
		// Each request reads its session, account and tenant: 15 at once want more connections than
		// the pool has (the default pool of 10 opens all ten here), so they queue for them.
		const answers = await Promise.all(
			users.flatMap((user) =>
				Array.from({ length: 5 }, () => call(server.base, "GET", "/v1/partners", { token: user.token })),
			),
		);
		expect(answers.map((answer) => `${answer.status} ${answer.status === 200 ? "" : answer.text}`)).toEqual(
			answers.map(() => "200 "),
		);
		// An idle pooled connection stays open for 10 s (node-postgres' default), so every
		// connection the burst opened is still listed.
		const open = await sessions();
		expect(open.rows.length).toBeGreaterThan(0);
		expect(open.rows.length).toBeLessThanOrEqual(POOL_SIZE);
	});

	it("runs the statements outside transactions on one more connection, shared, on the socket", async () => {
		const user = await register(server.base);
		const answers = await Promise.all(
			Array.from({ length: 5 }, () => call(server.base, "GET", "/v1/partners", { token: user.token })),
		);
		expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
		// The shared connection (storage-pg's autocommit-lane.ts) is named apart from the pool's.
		const shared = await onMaintenance((client) =>
			client.query<{ port: number }>(
				"select coalesce(client_port, 0) as port from pg_stat_activity where datname = $1 and application_name = 'as2kit-lane'",
				[new URL(database.url).pathname.slice(1)],
			),
		);
		expect(shared.rows).toEqual([{ port: -1 }]);
	});
});
