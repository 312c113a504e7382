/**
 * The migrations of a storage package up to, not including, the one whose tag ends with `tag`:
 * a copy in `scratch` whose journal stops there, so that a database migrated with it is the
 * one an upgrade to that migration finds (the migration tests of both adapters).
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";

const PACKAGES = new URL("../../packages/", import.meta.url).pathname;

export function migrationsBefore(pkg: "storage-pg" | "storage-sqlite", tag: string, scratch: string): string {
	const folder = join(scratch, "migrations");
	cpSync(join(PACKAGES, pkg, "migrations"), folder, { recursive: true });
	const journalPath = join(folder, "meta/_journal.json");
	const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { idx: number; tag: string }[] };
	const cut = journal.entries.findIndex((e) => e.tag.endsWith(tag));
	expect(cut, `the migration ${tag} in ${pkg}`).toBeGreaterThan(0);
	journal.entries = journal.entries.slice(0, cut);
	writeFileSync(journalPath, JSON.stringify(journal));
	return folder;
}
