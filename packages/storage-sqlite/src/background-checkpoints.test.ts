import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createSqliteStore } from "./create-store.ts";

const T0 = new Date("2026-01-01T00:00:00.000Z");

/**
 * Writes about 800 KiB (a few hundred WAL pages, under both SQLite's 1,000-page autocheckpoint and
 * the 10,000-page safety net) and answers how much the database file grew within `waitMs`:
 * only a checkpoint copies pages from the WAL into it.
 */
async function growthAfterWrites(backgroundCheckpoints: false | { startAfterMs: number; intervalMs: number }) {
	const dir = mkdtempSync(join(tmpdir(), "as2kit-checkpoints-"));
	const url = join(dir, "db.sqlite");
	const store = createSqliteStore({ url, backgroundCheckpoints });
	try {
		const before = statSync(url).size;
		for (let i = 0; i < 20; i++) {
			await store.transaction(async (tx) => {
				for (let j = 0; j < 10; j++) {
					await tx.jobs.enqueue({ kind: "bulk", payload: { filler: `${i}:${j}:`.padEnd(4000, "x") }, runAt: T0 }, T0);
				}
			});
		}
		for (let i = 0; i < 100 && statSync(url).size - before < 512 * 1024; i++) {
			await new Promise((r) => setTimeout(r, 20));
		}
		return statSync(url).size - before;
	} finally {
		await store.close();
		rmSync(dir, { recursive: true, force: true });
	}
}

it("checkpoints from a thread of its own while the connection only commits", async () => {
	expect(await growthAfterWrites({ startAfterMs: 0, intervalMs: 20 })).toBeGreaterThan(512 * 1024);
});

it("leaves the database file as it was without the thread, below SQLite's own checkpoint threshold", async () => {
	expect(await growthAfterWrites(false)).toBe(0);
});
