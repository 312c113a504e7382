import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { createSqliteStore } from "./create-store.ts";
import { BY_MESSAGE_ID, BY_MESSAGE_ID_OF_PARTNER } from "./repositories/messages.ts";

// Every inbound message is checked for a duplicate Message-ID, and every async MDN looks up its
// original: the lookup must seek the Message-ID, whatever the tenant's history holds.
it.each([
	["of any partner", BY_MESSAGE_ID, ["tnt_000001", "id@example", "inbound"]],
	["of one partner", BY_MESSAGE_ID_OF_PARTNER, ["tnt_000001", "id@example", "inbound", "prt_000001"]],
])("finds a Message-ID %s by seeking it in the message-id index", async (_name, sql, params) => {
	const dir = mkdtempSync(join(tmpdir(), "as2kit-lookup-"));
	const url = join(dir, "db.sqlite");
	const store = createSqliteStore({ url });
	const db = new Database(url, { readonly: true });
	try {
		const plan = db
			.prepare(`explain query plan ${sql}`)
			.all(...params)
			.map((row) => (row as { detail: string }).detail);
		// The few rows of one Message-ID are then sorted by time, which costs nothing.
		expect(plan).toEqual([
			"SEARCH messages USING INDEX messages_message_id_idx (tenant_id=? AND message_id=?)",
			"USE TEMP B-TREE FOR ORDER BY",
		]);
	} finally {
		db.close();
		await store.close();
		rmSync(dir, { recursive: true, force: true });
	}
});
