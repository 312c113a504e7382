// Why a statement costs more in the server than in a loop (issue #20, docs/performance-storage.md
// "SQLite in the server (stop 31)"): the `msg_` sequence upsert, the first statement of a
// submission's transaction, timed in BEGIN IMMEDIATE … COMMIT on a file database, back to back
// (everything it touches stays in the CPU's caches) and with 32 MiB of memory read between two
// transactions (as the server's TLS, CMS and HTTP work does), in alternating rounds. Wall time
// of each statement on this thread, median of each round (a core is rarely taken away within
// a few µs, so medians hold at load); nothing else runs in the process.
//
//   [BENCH_EVICT_MIB=32] node packages/storage-sqlite/bench/cold-statement.mjs [transactions=2000] [rounds=5]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";

const [transactions = 2000, rounds = 5] = process.argv.slice(2).map(Number);
const NEXT_VALUE = `insert into "sequences" ("prefix", "value") values (?, 1)
	on conflict ("prefix") do update set "value" = "sequences"."value" + 1 returning "value"`;
const dir = mkdtempSync(join(tmpdir(), "as2kit-cold-statement-"));
try {
	const db = new Database(join(dir, "bench.sqlite"));
	db.pragma("journal_mode = WAL");
	db.pragma("synchronous = NORMAL");
	db.exec('create table "sequences" ("prefix" text primary key, "value" integer not null)');
	const begin = db.prepare("BEGIN IMMEDIATE");
	const next = db.prepare(NEXT_VALUE);
	const commit = db.prepare("COMMIT");
	const evictMib = Number(process.env.BENCH_EVICT_MIB ?? 32);
	const other = new Float64Array((evictMib * 1024 * 1024) / 8);
	let sink = 0;
	const evict = () => {
		// One read a 64-byte line: every line of the buffer (32 MiB: more than this machine's caches).
		for (let i = 0; i < other.length; i += 8) sink += other[i];
	};
	const median = (values) => values.sort((a, b) => a - b)[values.length >> 1];
	const run = (cold) => {
		const times = { begin: [], upsert: [], commit: [] };
		for (let i = 0; i < transactions; i++) {
			if (cold) evict();
			let t = performance.now();
			begin.run();
			let u = performance.now();
			times.begin.push(u - t);
			t = u;
			next.get("msg");
			u = performance.now();
			times.upsert.push(u - t);
			t = u;
			commit.run();
			times.commit.push(performance.now() - t);
		}
		return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v) * 1000]));
	};
	const results = { hot: [], cold: [] };
	run(false);
	for (let round = 0; round < rounds; round++) {
		results.hot.push(run(false));
		results.cold.push(run(true));
	}
	console.log(
		`${transactions} transactions a round, ${rounds} rounds, ${evictMib} MiB read between cold ones; wall µs, median (min–max) of the rounds' medians`,
	);
	for (const [mode, runs] of Object.entries(results)) {
		const show = (key) => {
			const values = runs.map((r) => r[key]).sort((a, b) => a - b);
			return `${values[values.length >> 1].toFixed(1)} (${values[0].toFixed(1)}–${values.at(-1).toFixed(1)})`;
		};
		console.log(
			`${mode.padEnd(5)} BEGIN IMMEDIATE ${show("begin")}   upsert ${show("upsert")}   COMMIT ${show("commit")}`,
		);
	}
	db.close();
	if (sink === 42) console.log("");
} finally {
	rmSync(dir, { recursive: true, force: true });
}
