/**
 * A PostgreSQL database upgraded across one migration of storage-pg, for the migration tests:
 * migrated up to the migration before `tag` (migrations-before.ts), `seed` writes rows as the
 * adapter before the upgrade wrote them, the adapter's own migrations run, and `check` looks at
 * what the upgrade left, through the client or through a store of the adapter (`store()`, opened
 * on first use). The store, the client, the database and the scratch copy of the migrations are
 * gone afterwards, whatever the outcome.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { As2Store } from "@as2kit/core/store";
import { createPgStore } from "@as2kit/storage-pg";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { createTestDatabase } from "../pg/databases.ts";
import { migrationsBefore } from "./migrations-before.ts";

const MIGRATIONS = new URL("../../packages/storage-pg/migrations/", import.meta.url).pathname;

export interface Upgraded {
	client: pg.Client;
	/** The adapter on the upgraded database (a pool of 2), opened once. */
	store(): Promise<As2Store>;
}

export async function pgUpgradeAcross(
	tag: string,
	seed: (client: pg.Client) => Promise<void>,
	check: (upgraded: Upgraded) => Promise<void>,
): Promise<void> {
	const scratch = mkdtempSync(join(tmpdir(), "as2kit-pg-upgrade-"));
	const database = await createTestDatabase({ unmigrated: true });
	const client = new pg.Client({ connectionString: database.url });
	// Set by the check's first store(); a holder, as the closure assigns it.
	const opened: { store?: Promise<As2Store> } = {};
	try {
		await client.connect();
		const db = drizzle(client);
		await migrate(db, { migrationsFolder: migrationsBefore("storage-pg", tag, scratch) });
		await seed(client);
		await migrate(db, { migrationsFolder: MIGRATIONS });
		await check({
			client,
			store: () => {
				opened.store ??= createPgStore({ url: database.url, poolSize: 2 });
				return opened.store;
			},
		});
	} finally {
		// A store that failed to open has nothing to close; the check's failure is the one to see.
		await opened.store?.then(
			(store) => store.close(),
			() => {},
		);
		await client.end();
		await database.drop();
		rmSync(scratch, { recursive: true, force: true });
	}
}
