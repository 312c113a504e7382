// Counts the statements each server process of a bench runs, by their text: node-postgres'
// Client.query and better-sqlite3's statements (run, get, all, iterate). BEGIN and COMMIT are
// statements too, so transactions are counted with them. Preloaded into the servers:
//
//   BENCH_STATEMENT_COUNTS=/some/dir NODE_OPTIONS="--require $PWD/packages/server/bench/count-statements.cjs" \
//     node packages/server/bench/run.mjs instances
//   node packages/server/bench/count-statements.cjs /some/dir 1500   # per message, by process
//
// Each server (dist/bin/start.js) writes <dir>/<its data directory's name>-<pid>.json when it
// exits; other processes (the bench itself) are left alone.
const { writeFileSync, readdirSync, readFileSync } = require("node:fs");
const { createRequire } = require("node:module");
const { basename, join } = require("node:path");

const dir = process.env.BENCH_STATEMENT_COUNTS;
if (require.main === module) report(process.argv[2], Number(process.argv[3] ?? 1));
else if (dir && /dist[\\/]bin[\\/]start\.js$/.test(process.argv[1] ?? "")) install(dir);

function install(out) {
	const counts = new Map();
	const count = (text) => {
		const key = String(text).replace(/\s+/g, " ").trim();
		counts.set(key, (counts.get(key) ?? 0) + 1);
	};
	// The server's own copies of the drivers (another checkout's, when comparing two builds).
	const serverRequire = createRequire(process.argv[1]);
	const pg = serverRequire("pg");
	const query = pg.Client.prototype.query;
	pg.Client.prototype.query = function (config, ...rest) {
		count(typeof config === "string" ? config : (config?.text ?? config?.name ?? "?"));
		return query.call(this, config, ...rest);
	};
	const Database = serverRequire("better-sqlite3");
	const probe = new Database(":memory:");
	const Statement = Object.getPrototypeOf(probe.prepare("select 1"));
	probe.close();
	for (const method of ["run", "get", "all", "iterate"]) {
		const original = Statement[method];
		Statement[method] = function (...args) {
			count(this.source);
			return original.apply(this, args);
		};
	}
	// better-sqlite3's db.exec (BEGIN IMMEDIATE, COMMIT when run that way) is not a Statement.
	const exec = Database.prototype.exec;
	Database.prototype.exec = function (sql) {
		count(sql);
		return exec.call(this, sql);
	};
	process.on("exit", () => {
		const name = `${basename(process.env.AS2_DATA_DIR ?? "server")}-${process.pid}.json`;
		writeFileSync(join(out, name), JSON.stringify(Object.fromEntries(counts)));
	});
}

/** Prints each process's statements per message, most frequent first, with a total. */
function report(from, messages) {
	for (const file of readdirSync(from).filter((f) => f.endsWith(".json"))) {
		const counts = Object.entries(JSON.parse(readFileSync(join(from, file), "utf8"))).sort((a, b) => b[1] - a[1]);
		const total = counts.reduce((sum, [, n]) => sum + n, 0);
		console.log(`\n${file}: ${(total / messages).toFixed(2)} statements per message`);
		for (const [text, n] of counts) {
			if (n / messages >= 0.01) console.log(`${(n / messages).toFixed(2).padStart(7)}  ${text.slice(0, 150)}`);
		}
	}
}
