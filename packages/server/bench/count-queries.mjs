// Counts the statements each server process sends to its database, by text: a preload for the
// benchmarks (load-independent evidence for issue #20), and the report of what it wrote.
//
//   export BENCH_QUERY_COUNTS=$(mktemp -d /as2kit-counts-XXXX)
//   NODE_OPTIONS="--import=$PWD/packages/server/bench/count-queries.mjs" BENCH_CAPTURE=on BENCH_RUNS=1 \
//     BENCH_MESSAGES=500 node packages/server/bench/throughput.mjs
//   node packages/server/bench/count-queries.mjs "$BENCH_QUERY_COUNTS" 500 [--top 40]
//
// As a preload (BENCH_QUERY_COUNTS set), every PostgreSQL query (node-postgres' Client.query),
// the writes to PostgreSQL's sockets (a transaction's BEGIN shares its first statement's) and
// every SQLite statement (better-sqlite3's run/get/all/iterate and exec: BEGIN and COMMIT
// included) is counted; at exit the counts go to
// <dir>/<AS2_DATA_DIR's name or "pid-N">.json (the bench names instances "as2kit-bench-sender-…").
// Set-up (accounts, partners, certificates) is counted too: a few statements, spread over the
// messages. As a command, it prints each process's statements per message.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { countFiles } from "./count-files.mjs";

const dir = process.env.BENCH_QUERY_COUNTS;
const asCommand = process.argv[1] && import.meta.filename === process.argv[1];

if (asCommand) report(process.argv.slice(2));
else if (dir) preload(dir);

function preload(dir) {
	const counts = new Map();
	const count = (text) => counts.set(text, (counts.get(text) ?? 0) + 1);
	// Resolved as the storage adapters of the checkout being run resolve them (the entry is its
	// packages/server/dist/bin/start.js; this file may be another checkout's, in an A/B pair):
	// the same module instances the server loads.
	const entry = process.argv[1] ?? "";
	const repo = entry.endsWith(join("packages", "server", "dist", "bin", "start.js"))
		? resolve(dirname(entry), "../../../..")
		: fileURLToPath(new URL("../../..", import.meta.url));
	const requireFrom = (pkg) => createRequire(join(repo, "packages", pkg, "package.json"));
	try {
		const pg = requireFrom("storage-pg")("pg");
		const query = pg.Client.prototype.query;
		const watched = new WeakSet();
		pg.Client.prototype.query = function (config, ...rest) {
			count(`pg: ${typeof config === "string" ? config : (config?.text ?? config?.name ?? "?")}`);
			// Writes to the connection's socket, each one system call (queries corked together share one).
			const stream = this.connection?.stream;
			if (stream && !watched.has(stream)) {
				watched.add(stream);
				for (const method of ["_write", "_writev"]) {
					const original = stream[method];
					stream[method] = function (...args) {
						count("pg socket writes (system calls)");
						return original.apply(this, args);
					};
				}
			}
			return query.call(this, config, ...rest);
		};
	} catch {}
	try {
		const Database = requireFrom("storage-sqlite")("better-sqlite3");
		const probe = new Database(":memory:");
		const statement = Object.getPrototypeOf(probe.prepare("SELECT 1"));
		probe.close();
		for (const method of ["run", "get", "all", "iterate"]) {
			const original = statement[method];
			statement[method] = function (...args) {
				count(`sqlite: ${this.source}`);
				return original.apply(this, args);
			};
		}
		const exec = Database.prototype.exec;
		Database.prototype.exec = function (source) {
			count(`sqlite: ${source}`);
			return exec.call(this, source);
		};
	} catch {}
	const name = process.env.AS2_DATA_DIR ? basename(process.env.AS2_DATA_DIR) : `pid-${process.pid}`;
	process.on("exit", () => {
		if (counts.size === 0) return;
		writeFileSync(join(dir, `${name}.json`), JSON.stringify(Object.fromEntries(counts)));
	});
}

function report(args) {
	const { messages, top, files } = countFiles(args, "count-queries.mjs");
	for (const { file, data } of files) {
		const counts = Object.entries(data).sort((a, b) => b[1] - a[1]);
		const total = counts.filter(([text]) => /^(pg|sqlite): /.test(text)).reduce((sum, [, n]) => sum + n, 0);
		console.log(`\n${file}: ${(total / messages).toFixed(2)} statements per message (${total} in all)`);
		for (const [text, n] of counts.slice(0, top)) {
			console.log(`${(n / messages).toFixed(2).padStart(7)}  ${text.replace(/\s+/g, " ").slice(0, 150)}`);
		}
	}
}
