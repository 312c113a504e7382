// What a COMMIT costs against the size of SQLite's page cache, and what reads cost without it
// (issue #20, docs/performance-storage.md "SQLite in the server (stop 31)").
//
// SQLite's page cache (pcache1) drops, at every write COMMIT, the pages past the database's end
// (pager_end_transaction → pcache1Truncate). It walks its whole hash table to do so whenever
// the transaction's largest page number is far past the end, and a b-tree balance that reorders
// sibling pages always makes it so: it renumbers one page to the lock-byte page (1 GiB / page
// size + 1) for a moment (balance_nonroot). That walk touches every cached page's header: its
// cost is the number of pages cached, 16,000 with a 64 MiB cache once the process has run a
// while.
//
// Each configuration runs in a child process of its own (a second connection would reset the
// first's cache), configurations alternating round after round: CPU µs per write transaction
// (BEGIN IMMEDIATE, two inserts into a table with a random-key index, COMMIT) with the cache
// full, and per read of 50 rows by a random range of that index.
//
//   node packages/storage-sqlite/bench/page-cache.mjs [rows=200000] [transactions=3000] [rounds=5]
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";

const CONFIGS = {
	"64 MiB cache (stop 30)": ["cache_size = -65536"],
	"8 MiB cache": ["cache_size = -8192"],
	"8 MiB cache + mmap (stop 31)": ["cache_size = -8192", "mmap_size = 2147483648"],
	"2 MiB cache + mmap": ["cache_size = -2000", "mmap_size = 2147483648"],
};

const [, , child, path, configName, transactionsArg] = process.argv;
if (child === "--child") runChild(path, configName, Number(transactionsArg));
else runParent(process.argv.slice(2).map(Number));

function runParent([rows = 200_000, transactions = 3000, rounds = 5]) {
	const dir = mkdtempSync(join(tmpdir(), "as2kit-page-cache-"));
	try {
		const file = join(dir, "bench.sqlite");
		const db = new Database(file);
		db.pragma("journal_mode = WAL");
		db.exec("create table rows (id integer primary key, key text not null, body text not null)");
		db.exec("create index rows_key on rows (key)");
		const insert = db.prepare("insert into rows (key, body) values (?, ?)");
		db.transaction(() => {
			for (let i = 0; i < rows; i++) insert.run(randomBytes(12).toString("hex"), "x".repeat(200));
		})();
		db.pragma("wal_checkpoint(TRUNCATE)");
		const pages = db.pragma("page_count", { simple: true });
		db.close();
		console.log(`${rows} rows, ${pages} pages of 4 KiB; ${transactions} transactions a round, ${rounds} rounds`);
		const results = new Map(Object.keys(CONFIGS).map((name) => [name, []]));
		for (let round = 0; round < rounds; round++) {
			for (const name of Object.keys(CONFIGS)) {
				const out = execFileSync(process.execPath, [import.meta.filename, "--child", file, name, String(transactions)]);
				results.get(name).push(JSON.parse(out));
			}
		}
		console.log("CPU µs, median (min–max) of the rounds");
		for (const [name, runs] of results) {
			const show = (key) => {
				const values = runs.map((r) => r[key]).sort((a, b) => a - b);
				return `${values[values.length >> 1].toFixed(1)} (${values[0].toFixed(1)}–${values.at(-1).toFixed(1)})`;
			};
			console.log(`${name.padEnd(28)} write transaction ${show("write")}   read of 50 rows ${show("read")}`);
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

function runChild(file, name, transactions) {
	const db = new Database(file);
	db.pragma("synchronous = NORMAL");
	db.pragma("temp_store = MEMORY");
	// Checkpoints between measurements only, never inside a timed COMMIT.
	db.pragma("wal_autocheckpoint = 0");
	for (const pragma of CONFIGS[name]) db.pragma(pragma);
	// Fill the cache as a long-running server's is: every page read once.
	db.prepare("select count(*), sum(length(body)) from rows").get();
	db.prepare("select count(*) from rows indexed by rows_key where key > ''").get();
	const begin = db.prepare("BEGIN IMMEDIATE");
	const commit = db.prepare("COMMIT");
	const insert = db.prepare("insert into rows (key, body) values (?, ?)");
	const read = db.prepare("select id, body from rows where key >= ? order by key limit 50");
	const keys = Array.from({ length: transactions * 2 }, () => randomBytes(12).toString("hex"));
	const cpu = () => {
		const { user, system } = process.cpuUsage();
		return user + system;
	};
	let start = cpu();
	for (let i = 0; i < transactions; i++) {
		begin.run();
		insert.run(keys[2 * i], "y".repeat(200));
		insert.run(keys[2 * i + 1], "y".repeat(200));
		commit.run();
	}
	const write = (cpu() - start) / transactions;
	db.pragma("wal_checkpoint(TRUNCATE)");
	start = cpu();
	for (let i = 0; i < transactions; i++) read.all(keys[i]);
	const readCost = (cpu() - start) / transactions;
	db.close();
	process.stdout.write(JSON.stringify({ write, read: readCost }));
}
