// CPU time of each SQLite statement kind in the server's own shape: a preload timing every
// better-sqlite3 run/get/all/iterate (BEGIN and COMMIT included) with process.cpuUsage around
// the native call, by statement text; and the report of what it wrote (µs per call, per message).
//
//   export BENCH_STATEMENT_TIMES=$(mktemp -d /as2kit-times-XXXX)
//   NODE_OPTIONS="--import=$PWD/packages/server/bench/time-statements.mjs" BENCH_CAPTURE=on BENCH_RUNS=1 \
//     BENCH_WARMUP=0 BENCH_MESSAGES=500 node packages/server/bench/throughput.mjs
//   node packages/server/bench/time-statements.mjs "$BENCH_STATEMENT_TIMES" [--top 30]
//
// process.cpuUsage is a getrusage system call (~0.5–1 µs, charged to every statement alike) and
// counts every thread of the process (the checkpoint thread, libuv's pool, GC helpers): a
// statement's CPU includes what those did meanwhile. Its wall time (main thread, performance.now)
// is reported beside it, with the medians of the first 5,000 calls of each kind.
// Per message = per `insert into "messages"`.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const dir = process.env.BENCH_STATEMENT_TIMES;
const asCommand = process.argv[1] && import.meta.filename === process.argv[1];

if (asCommand) report(process.argv.slice(2));
else if (dir) preload(dir);

function preload(dir) {
	/** statement text → [calls, CPU µs, wall µs, samples of [CPU, wall] µs (the first 5,000)] */
	const times = new Map();
	// The storage adapter of the checkout being run (its packages/server/dist/bin/start.js).
	const entry = process.argv[1] ?? "";
	const repo = entry.endsWith(join("packages", "server", "dist", "bin", "start.js"))
		? resolve(dirname(entry), "../../../..")
		: fileURLToPath(new URL("../../..", import.meta.url));
	let Database;
	try {
		Database = createRequire(join(repo, "packages", "storage-sqlite", "package.json"))("better-sqlite3");
	} catch {
		return;
	}
	const probe = new Database(":memory:");
	const prototype = Object.getPrototypeOf(probe.prepare("select 1"));
	probe.close();
	for (const method of ["run", "get", "all", "iterate"]) {
		const original = prototype[method];
		prototype[method] = function (...args) {
			const before = process.cpuUsage();
			const start = performance.now();
			try {
				return original.apply(this, args);
			} finally {
				const wall = (performance.now() - start) * 1000;
				const used = process.cpuUsage(before);
				const cpu = used.user + used.system;
				const text = this.source.replace(/\s+/g, " ").slice(0, 140);
				const entry = times.get(text) ?? [0, 0, 0, []];
				entry[0]++;
				entry[1] += cpu;
				entry[2] += wall;
				if (entry[3].length < 5000) entry[3].push([cpu, Math.round(wall * 10) / 10]);
				times.set(text, entry);
			}
		};
	}
	process.on("exit", () => {
		const name = process.env.AS2_DATA_DIR ? basename(process.env.AS2_DATA_DIR) : `pid-${process.pid}`;
		writeFileSync(join(dir, `${name}.json`), JSON.stringify(Object.fromEntries(times)));
	});
}

function report(args) {
	const [dir] = args;
	const top = Number(args[args.indexOf("--top") + 1] || 30);
	for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
		const times = Object.entries(JSON.parse(readFileSync(join(dir, file), "utf8")));
		const messages = times.find(([text]) => text.startsWith('insert into "messages"'))?.[1][0] ?? 0;
		if (!messages) continue;
		const total = times.reduce((sum, [, [, us]]) => sum + us, 0);
		console.log(`${file}: ${(total / messages).toFixed(1)} µs of statements per message (${messages} messages)`);
		console.log("  CPU µs/msg  calls/msg  CPU µs/call (median)  wall µs/call (median)  statement");
		const median = (values) => values.sort((a, b) => a - b)[values.length >> 1] ?? 0;
		for (const [text, [calls, us, wall, samples]] of times.sort((a, b) => b[1][1] - a[1][1]).slice(0, top)) {
			const cpuMedian = median(samples.map((s) => s[0]));
			const wallMedian = median(samples.map((s) => s[1]));
			console.log(
				`  ${(us / messages).toFixed(1).padStart(10)}  ${(calls / messages).toFixed(2).padStart(9)}  ${(us / calls).toFixed(1).padStart(7)} (${cpuMedian.toFixed(0).padStart(4)})  ${(wall / calls).toFixed(1).padStart(12)} (${wallMedian.toFixed(1).padStart(5)})  ${text.slice(0, 90)}`,
			);
		}
	}
}
