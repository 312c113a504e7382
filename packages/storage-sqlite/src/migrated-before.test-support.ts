import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";

/**
 * For upgrade tests: a database at `url` as an earlier version left it, migrated by every
 * migration before `tag` (such as "0008") and none from it on. The migrations are copied to
 * `scratch` with their journal cut there; the caller closes the connection returned.
 */
export function migratedBefore(url: string, scratch: string, tag: string): Database.Database {
	const migrations = join(scratch, "migrations");
	cpSync(fileURLToPath(new URL("../migrations", import.meta.url)), migrations, { recursive: true });
	const journalFile = join(migrations, "meta", "_journal.json");
	const journal = JSON.parse(readFileSync(journalFile, "utf8"));
	journal.entries = journal.entries.filter((entry: { tag: string }) => entry.tag < tag);
	writeFileSync(journalFile, JSON.stringify(journal));
	const db = new Database(url);
	migrate(drizzle(db), { migrationsFolder: migrations });
	return db;
}
