import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { message } from "../../../test/storage/suites/messages.ts";
import { createSqliteStore } from "./create-store.ts";

it("keeps planner statistics on the messages table only, never on the search index's shadow tables", async () => {
	// Statistics of FTS5's shadow tables taken while they were small made every later insert
	// scan them: a million messages took hours to store instead of minutes.
	const dir = mkdtempSync(join(tmpdir(), "as2kit-statistics-"));
	try {
		const url = join(dir, "as2.sqlite");
		const first = createSqliteStore({ url });
		await first.messages.create(message("msg_000001"));
		await first.close();
		// The second open gathers statistics of a table that now has rows, the search index's included.
		await createSqliteStore({ url }).close();
		const raw = new Database(url, { readonly: true });
		const tables = raw.prepare("SELECT DISTINCT tbl FROM sqlite_stat1").pluck().all();
		raw.close();
		expect(tables).toEqual(["messages"]);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
