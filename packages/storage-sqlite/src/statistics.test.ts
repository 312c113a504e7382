import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { message } from "../../../test/storage/suites/messages.ts";
import { createSqliteStore } from "./create-store.ts";

it("gathers no planner statistics on the search index's shadow tables", async () => {
	// PRAGMA optimize at open once analyzed FTS5's shadow tables while they were nearly empty;
	// with those statistics SQLite scanned them on every insert, and storing a million
	// messages took hours instead of minutes.
	const dir = mkdtempSync(join(tmpdir(), "as2kit-statistics-"));
	try {
		const url = join(dir, "as2.sqlite");
		const first = createSqliteStore({ url });
		await first.messages.create(message("msg_000001"));
		await first.close();
		await createSqliteStore({ url }).close();
		const raw = new Database(url, { readonly: true });
		const hasStatistics = raw.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'").pluck().get();
		const analyzed = hasStatistics ? raw.prepare("SELECT DISTINCT tbl FROM sqlite_stat1").pluck().all() : [];
		raw.close();
		expect(analyzed.filter((table) => String(table).startsWith("message_search"))).toEqual([]);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
