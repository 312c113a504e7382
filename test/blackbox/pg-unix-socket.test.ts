/**
 * The built server on PostgreSQL through its Unix socket, as an instance on the database's
 * host connects (README, "Running several instances"): DATABASE_URL in the libpq form, the
 * socket's directory as `host`. Every other PostgreSQL test connects over loopback TCP.
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
		server = await startBuiltServer({ store: "sqlite", env: { DATABASE_URL: url.toString() } });
	});
	afterAll(async () => {
		await server?.stop();
		await database?.drop();
	});

	it("registers a user with fetch, its connections all on the socket", async () => {
		expect((await call(server.base, "GET", "/health")).json).toEqual({ status: "ok" });
		const user = await register(server.base);
		expect(user.token).toMatch(/^sess_/);
		const name = new URL(database.url).pathname.slice(1);
		const sessions = await onMaintenance((client) =>
			client.query<{ port: number }>(
				"select coalesce(client_port, 0) as port from pg_stat_activity where datname = $1 and application_name = 'as2kit'",
				[name],
			),
		);
		// client_port is -1 for a client on a Unix socket.
		expect(sessions.rows.length).toBeGreaterThan(0);
		expect(sessions.rows.map((row) => row.port)).toEqual(sessions.rows.map(() => -1));
	});
});
