import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { As2Store } from "@as2kit/core/store";
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createSqliteStore } from "./create-store.ts";

/**
 * What a message's steps write, by b-tree: every page a commit changes is a WAL frame (issue
 * #20, "SQLite: statements and pages per message" in docs/performance-storage.md), so each
 * index a row carries costs every insert and removal a page. These pin the b-trees that a step
 * writes to those a documented query reads.
 */
const T0 = new Date("2026-01-01T00:00:00.000Z");
const WAL_HEADER = 32;
const FRAME_HEADER = 24;
const PAGE = 4096;

let dir: string;
let path: string;
let store: As2Store;
let spy: Database.Database;

beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), "as2kit-pages-"));
	path = join(dir, "db.sqlite");
	store = createSqliteStore({ url: path, backgroundCheckpoints: false, searchIndexing: false });
	spy = new Database(path);
});

afterAll(async () => {
	spy.close();
	await store.close();
	rmSync(dir, { recursive: true, force: true });
});

/** The b-trees (tables and indexes) whose pages `step` wrote to the WAL. */
async function btreesWrittenBy(step: () => Promise<unknown>): Promise<string[]> {
	spy.pragma("wal_checkpoint(TRUNCATE)");
	await step();
	const wal = readFileSync(`${path}-wal`);
	const names = new Map(
		(spy.prepare("select pageno, name from dbstat").all() as { pageno: number; name: string }[]).map((row) => [
			row.pageno,
			row.name,
		]),
	);
	const written = new Set<string>();
	for (let offset = WAL_HEADER; offset + FRAME_HEADER + PAGE <= wal.length; offset += FRAME_HEADER + PAGE) {
		const page = wal.readUInt32BE(offset);
		written.add(names.get(page) ?? `page ${page}`);
	}
	return [...written].sort();
}

it("a job's insert and its removal write the jobs table, its key and the claim order, no other index", async () => {
	const job = { kind: "send", key: "send:msg_1", payload: { messageId: "msg_1" }, runAt: T0 };
	// The table's first rows, so that later inserts write no new pages of the schema.
	await store.jobs.enqueue({ ...job, key: "warm-up" }, T0);
	let held = "";
	const enqueued = await btreesWrittenBy(async () => {
		held = (await store.jobs.enqueueClaimed(job, T0, { workerId: "w1", lockedUntil: T0 }))!.id;
	});
	expect(enqueued).toEqual(["jobs", "jobs_claim_idx", "jobs_key_unique", "sqlite_sequence"]);
	const completed = await btreesWrittenBy(() => store.jobs.complete(held, "w1"));
	expect(completed).toEqual(["jobs", "jobs_claim_idx", "jobs_key_unique"]);
});
