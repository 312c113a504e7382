/**
 * A DATABASE_URL that names PostgreSQL's Unix socket (README, "Running several instances"):
 * the libpq form, the socket's directory as `host`. The other tests connect over loopback TCP.
 */
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { createPgStore } from "./create-store.ts";

/** The test PostgreSQL's maintenance URL (test/pg/global-setup.ts); null only outside CI without one. */
const url = inject("pgUrl");

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
	const client = new pg.Client({ connectionString: url ?? "" });
	await client.connect();
	try {
		return await fn(client);
	} finally {
		await client.end();
	}
}

describe.skipIf(url === null)("createPgStore", () => {
	it("connects through the Unix socket a URL's host=<directory> names", async () => {
		const directory = await admin(async (client) => {
			const { rows } = await client.query<{ dirs: string }>(
				"select current_setting('unix_socket_directories') as dirs",
			);
			return rows[0]?.dirs.split(",")[0]?.trim() ?? "";
		});
		expect(directory.startsWith("/")).toBe(true);
		const name = `as2kit_socket_${process.pid}`;
		await admin((client) => client.query(`create database ${name} template as2kit_template`));
		try {
			const socketUrl = new URL(url ?? "");
			socketUrl.pathname = `/${name}`;
			socketUrl.searchParams.set("host", directory);
			const store = await createPgStore({ url: socketUrl.toString(), poolSize: 1 });
			try {
				expect(await store.transaction((tx) => tx.accounts.get("acc_000001"))).toBeNull();
				const sessions = await admin((client) =>
					client.query<{ n: number }>(
						"select count(*)::int as n from pg_stat_activity where datname = $1 and client_port = -1",
						[name],
					),
				);
				// client_port -1: a backend whose client came through a Unix socket.
				expect(sessions.rows[0]?.n).toBeGreaterThanOrEqual(1);
			} finally {
				await store.close();
			}
		} finally {
			await admin((client) => client.query(`drop database if exists ${name} with (force)`));
		}
	});
});
