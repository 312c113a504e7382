import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createSqliteStore } from "./create-store.ts";

/**
 * A file store reads its pages through a memory map, its own page cache kept small: a large
 * cache cost every COMMIT after a b-tree balance a walk over all its pages (create-store.ts,
 * docs/performance-storage.md "SQLite in the server (stop 31)"). The map is seen from the
 * outside in the process's mappings (Linux).
 */
let dir: string;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "as2kit-page-cache-"));
});

afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
});

const mapsOf = (path: string) =>
	readFileSync("/proc/self/maps", "utf8")
		.split("\n")
		.filter((line) => line.endsWith(` ${path}`));

it.runIf(process.platform === "linux")("reads a file database through a map it releases on close", async () => {
	const path = join(dir, "db.sqlite");
	const store = createSqliteStore({ url: path, backgroundCheckpoints: false, searchIndexing: false });
	// A read past page 1 (page 1 is always read into the cache) in a read transaction.
	await store.jobs.list();
	expect(mapsOf(path).length).toBeGreaterThan(0);
	await store.close();
	expect(mapsOf(path)).toEqual([]);
});
