import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import type pg from "pg";

const MIGRATIONS = fileURLToPath(new URL("../migrations", import.meta.url));

/** An arbitrary 64-bit key of this package's migration lock ("as2kit" in ASCII). */
const MIGRATION_LOCK = 0x61_73_32_6b_69_74n;

/**
 * Applies the migrations drizzle-kit generated, holding a session advisory lock: instances
 * that start together take turns, and the ones after the first find nothing left to do.
 */
export async function applyMigrations(pool: pg.Pool): Promise<void> {
	const client = await pool.connect();
	// Checked out, a client's 'error' has no listener but ours (connection.ts, transaction).
	let broken = false;
	const onError = () => {
		broken = true;
	};
	client.on("error", onError);
	try {
		await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK.toString()]);
		try {
			await migrate(drizzle(client), { migrationsFolder: MIGRATIONS });
		} finally {
			await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK.toString()]);
		}
	} finally {
		client.off("error", onError);
		client.release(broken);
	}
}
