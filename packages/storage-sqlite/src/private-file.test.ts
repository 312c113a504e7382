import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteStore } from "./create-store.ts";

let dir: string;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "as2kit-sqlite-modes-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

// Issue #16, defect 12: the database and its -wal/-shm were created 0644.
describe("the SQLite files at rest", () => {
	it("creates the database, its -wal and -shm 0600, in a new directory 0700", async () => {
		const path = join(dir, "data", "nested", "as2.sqlite");
		const store = createSqliteStore({ url: path, backgroundCheckpoints: false, searchIndexing: false });
		try {
			await store.ids.next("msg_");
			const files = readdirSync(join(dir, "data", "nested")).sort();
			expect(files).toEqual(["as2.sqlite", "as2.sqlite-shm", "as2.sqlite-wal"]);
			for (const file of files) expect(mode(join(dir, "data", "nested", file)), file).toBe(0o600);
			expect(mode(join(dir, "data"))).toBe(0o700);
			expect(mode(join(dir, "data", "nested"))).toBe(0o700);
		} finally {
			await store.close();
		}
	});

	it("opens an existing database without changing its mode (the operator's choice)", async () => {
		const path = join(dir, "as2.sqlite");
		writeFileSync(path, "");
		chmodSync(path, 0o640);
		const store = createSqliteStore({ url: `file:${path}`, backgroundCheckpoints: false, searchIndexing: false });
		try {
			await store.ids.next("msg_");
			expect(mode(path)).toBe(0o640);
		} finally {
			await store.close();
		}
	});
});
