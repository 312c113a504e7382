// `npm run bench -w @as2kit/storage-sqlite`: the storage side of one message, step by step
// (message-steps.mjs), on a file database that already holds BENCH_ROWS messages, with the
// WAL pages each step writes (its write amplification: one page per b-tree it changes).
// Reads the built package (dist/): `npm run build` first.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { prefill, report, runSteps } from "./message-steps.mjs";

// BENCH_STORE_MODULE: another build of the package (a copy of dist/ from before a change), for A/B pairs.
const { createSqliteStore } = await import(process.env.BENCH_STORE_MODULE ?? "../dist/index.js");

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const COUNT = Number(process.env.BENCH_MESSAGES ?? 300);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PAGE = 4096;
const FRAME = PAGE + 24;
/**
 * Indexes to drop before measuring (comma-separated names): what an index costs each write,
 * measured rather than guessed. The database is a scratch copy; the migrations are untouched.
 */
/** Messages whose transactions share one commit (BENCH_GROUP): the ceiling of group commit's gain. */
const GROUP = Number(process.env.BENCH_GROUP ?? 1);
const DROP = (process.env.BENCH_DROP_INDEXES ?? "").split(",").filter(Boolean);

/** Counts the statements every connection of this process runs (each run, get, all or iterate). */
function countStatements(db) {
	let statements = 0;
	const prototype = Object.getPrototypeOf(db.prepare("select 1"));
	for (const method of ["run", "get", "all", "iterate"]) {
		const original = prototype[method];
		prototype[method] = function (...args) {
			statements++;
			return original.apply(this, args);
		};
	}
	return () => statements;
}

const dir = mkdtempSync(join(tmpdir(), "as2kit-sqlite-bench-"));
const path = join(dir, "bench.sqlite");
try {
	// No checkpoint thread: the WAL only grows while a step runs, so its growth counts the
	// pages the step wrote. The connection's own safety net (10,000 pages) is never reached.
	const store = createSqliteStore({
		url: path,
		backgroundCheckpoints: { startAfterMs: 2 ** 30 },
		searchIndexing: false,
	});
	const observer = new Database(path);
	try {
		for (const name of DROP) observer.exec(`drop index "${name}"`);
		const started = performance.now();
		await prefill(store, ROWS);
		console.log(`prefilled ${ROWS} messages in ${((performance.now() - started) / 1000).toFixed(1)} s`);
		const walFrames = () => Math.max(0, (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 32) - 32) / FRAME;
		const statements = countStatements(observer);
		let before = 0;
		const runs = [];
		for (let r = 0; r < RUNS; r++) {
			runs.push(
				await runSteps(store, COUNT, {
					beforeStep: () => {
						observer.pragma("wal_checkpoint(TRUNCATE)");
						before = statements();
					},
					afterStep: (_name, count) => ({
						// BEGIN and COMMIT included: each is a statement of its own.
						statements: (statements() - before) / count,
						walPages: walFrames() / count,
					}),
					group: GROUP,
				}),
			);
		}
		report(
			`storage-sqlite: µs per message step, ${COUNT} messages × ${RUNS} runs on ${ROWS} rows${GROUP > 1 ? `, ${GROUP} messages a commit` : ""}${DROP.length ? `, without ${DROP.join(", ")}` : ""}`,
			runs,
		);
	} finally {
		observer.close();
		await store.close();
	}
} finally {
	rmSync(dir, { recursive: true, force: true });
}
