// Counts the statements each server process sends to its database, by text: a preload for the
// benchmarks (load-independent evidence for issue #20), and the report of what it wrote.
//
//   export BENCH_QUERY_COUNTS=$(mktemp -d /as2kit-counts-XXXX)
//   NODE_OPTIONS="--import=$PWD/packages/server/bench/count-queries.mjs" BENCH_CAPTURE=on BENCH_RUNS=1 \
//     BENCH_WARMUP=0 BENCH_MESSAGES=500 BENCH_RATE=20 BENCH_SECONDS=1 node packages/server/bench/throughput.mjs
//   node packages/server/bench/count-queries.mjs "$BENCH_QUERY_COUNTS" 520 [--top 40]
//
// As a preload (BENCH_QUERY_COUNTS set), every PostgreSQL query (node-postgres' Client.query),
// the writes to PostgreSQL's sockets (a transaction's BEGIN shares its first statement's) and
// every SQLite statement (better-sqlite3's run/get/all/iterate and exec: BEGIN and COMMIT
// included) is counted, and what the PostgreSQL client parses of the answers (rows, and their
// columns by type: described rows, which node-postgres makes objects with a type parser a
// column, apart from the rows of statements run without Describe); at exit the counts go to
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
	const count = (text, n = 1) => counts.set(text, (counts.get(text) ?? 0) + n);
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
						// One message alone (a simple query: COMMIT, a BEGIN not joined to a statement) or several.
						count(`pg socket writes, ${method === "_write" ? "one message" : "several messages"}`);
						return original.apply(this, args);
					};
				}
			}
			return query.call(this, config, ...rest);
		};
		countAnswers(pg.Client.prototype, count);
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

/** PostgreSQL's type names for the OIDs the schema uses; others by number. */
const TYPE_NAMES = new Map([
	[16, "bool"],
	[20, "int8"],
	[23, "int4"],
	[25, "text"],
	[114, "json"],
	[1043, "varchar"],
	[1184, "timestamptz"],
	[3802, "jsonb"],
]);

/**
 * What the client parses of the answers: rows and their columns, described ones (node-postgres
 * builds an object with a type parser a column) by the column's type, and rows of the statements
 * run without Describe (undescribed-query.ts: the columns' text, decoded by the adapter) apart.
 * node-postgres binds its message handlers when a client connects: patched here, before any does.
 */
function countAnswers(client, count) {
	const fieldsOf = new WeakMap();
	const onDescription = client._handleRowDescription;
	client._handleRowDescription = function (message) {
		const active = this._getActiveQuery?.();
		if (active) fieldsOf.set(active, message.fields);
		count("pg row descriptions (Describe answered)");
		return onDescription.call(this, message);
	};
	const onRow = client._handleDataRow;
	client._handleDataRow = function (message) {
		const fields = fieldsOf.get(this._getActiveQuery?.());
		if (fields) {
			count("pg rows parsed, described (objects)");
			message.fields.forEach((value, i) => {
				if (value === null) count("pg columns parsed, described: null");
				else count(`pg columns parsed, described: ${TYPE_NAMES.get(fields[i]?.dataTypeID) ?? fields[i]?.dataTypeID}`);
			});
		} else {
			count("pg rows as text, undescribed");
			count("pg columns as text, undescribed", message.fields.length);
		}
		return onRow.call(this, message);
	};
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
