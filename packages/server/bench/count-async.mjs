// Counts the async resources each server process creates (promises, ticks, timers, write
// requests, …) by kind, and where its promises are made (a 1-in-N sample of their stacks): a
// preload for the benchmarks (load-independent evidence for issue #20: each promise costs an
// allocation, and on Node 20 with an AsyncLocalStorage in use, a promise hook), and the report
// of what it wrote.
//
//   export BENCH_ASYNC_COUNTS=$(mktemp -d /as2kit-counts-XXXX)
//   NODE_OPTIONS="--import=$PWD/packages/server/bench/count-async.mjs" BENCH_CAPTURE=on BENCH_RUNS=1 \
//     BENCH_WARMUP=0 BENCH_MESSAGES=500 BENCH_RATE=20 BENCH_SECONDS=1 node packages/server/bench/throughput.mjs
//   node packages/server/bench/count-async.mjs "$BENCH_ASYNC_COUNTS" 520 [--top 30]
//
// As a preload (BENCH_ASYNC_COUNTS set, in a process whose entry is the server's start.js), an
// async_hooks init hook counts each resource by type; one promise in BENCH_ASYNC_SAMPLE (50)
// has its stack's first frames recorded, counted as that many. The hook itself slows the process:
// read the counts, not its CPU. At exit the counts go to <dir>/<AS2_DATA_DIR's name, floor-<side>-<pid> or "pid-N">.json.
import { createHook } from "node:async_hooks";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { countFiles, floorRole, instanceName } from "./count-files.mjs";

const dir = process.env.BENCH_ASYNC_COUNTS;
const asCommand = process.argv[1] && import.meta.filename === process.argv[1];

if (asCommand) report(process.argv.slice(2));
else if (dir && (process.argv[1]?.endsWith("start.js") || floorRole())) preload(dir);

function preload(dir) {
	const every = Number(process.env.BENCH_ASYNC_SAMPLE ?? 50);
	const types = new Map();
	const sites = new Map();
	let promises = 0;
	let sampling = false;
	createHook({
		init(_id, type) {
			types.set(type, (types.get(type) ?? 0) + 1);
			if (type !== "PROMISE" || ++promises % every !== 0 || sampling) return;
			sampling = true;
			const limit = Error.stackTraceLimit;
			Error.stackTraceLimit = 12;
			const site = siteOf(new Error().stack ?? "");
			Error.stackTraceLimit = limit;
			sites.set(site, (sites.get(site) ?? 0) + every);
			sampling = false;
		},
	}).enable();
	const name = instanceName();
	process.on("exit", () => {
		writeFileSync(join(dir, `${name}.json`), JSON.stringify({ types: [...types], sites: [...sites] }));
	});
}

/** The first four frames below the hook, shortened to package-relative paths. */
function siteOf(stack) {
	return stack
		.split("\n")
		.slice(1)
		.filter((line) => !/node:internal\/async_hooks|count-async\.mjs/.test(line))
		.slice(0, 4)
		.map((line) =>
			line
				.trim()
				.replace(/^at /, "")
				.replace(/(\(|file:\/\/)\/\S*?\/(packages|node_modules)\//, "$1"),
		)
		.join(" < ");
}

function report(args) {
	const { messages, top, files } = countFiles(args, "count-async.mjs");
	for (const { file, data } of files) {
		const { types, sites } = data;
		const perMessage = (n) => (n / messages).toFixed(1);
		const kinds = types.sort((a, b) => b[1] - a[1]).filter(([, n]) => n / messages >= 0.1);
		console.log(`\n${file}, per message: ${kinds.map(([type, n]) => `${type} ${perMessage(n)}`).join(", ")}`);
		console.log("promises made at (sampled):");
		for (const [site, n] of sites.sort((a, b) => b[1] - a[1]).slice(0, top)) {
			console.log(`${perMessage(n).padStart(7)}  ${site.slice(0, 220)}`);
		}
	}
}
