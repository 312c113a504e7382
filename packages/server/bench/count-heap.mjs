// Counts the JS heap bytes each server process allocates, by function: what the scavenger
// sweeps after each message (issue #20), counted rather than timed, so the machine's load does
// not move it. V8's sampling heap profiler (one sample per BENCH_HEAP_INTERVAL bytes, 256),
// told to keep the samples of objects already collected, gives the bytes allocated by each
// function, not only the ones still live. A preload for the benchmarks, and the report of what
// it wrote (the method of as2-core's bench/per-message-heap.mjs, for the server processes).
//
//   export BENCH_HEAP_COUNTS=$(mktemp -d /as2kit-heap-XXXX)
//   NODE_OPTIONS="--import=$PWD/packages/server/bench/count-heap.mjs" BENCH_CAPTURE=on BENCH_RUNS=1 \
//     BENCH_WARMUP=0 BENCH_MESSAGES=500 BENCH_RATE=20 BENCH_SECONDS=1 node packages/server/bench/throughput.mjs
//   node packages/server/bench/count-heap.mjs "$BENCH_HEAP_COUNTS" 520 [--top 30] [--match send.ts]
//
// The sides of floor.mjs (the platform's floor) are counted the same way, as floor-<side>-<pid>.json
// (FLOOR_VARIANTS=full FLOOR_RUNS=1: one pair of processes).
//
// BENCH_HEAP_CALLERS=N (0) names each function with its N nearest scripted callers.
//
// The counts include the process's start (migrations, module loading): compare two builds with
// the same command, and read the functions, not the total alone. At exit the counts go to
// <dir>/<AS2_DATA_DIR's name or "pid-N">.json.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";
import { countFiles, floorRole, instanceName } from "./count-files.mjs";

const dir = process.env.BENCH_HEAP_COUNTS;
const asCommand = process.argv[1] && import.meta.filename === process.argv[1];

if (asCommand) report(process.argv.slice(2));
else if (dir && (process.argv[1]?.endsWith("start.js") || floorRole())) preload(dir);

function preload(dir) {
	const session = new Session();
	session.connect();
	session.post("HeapProfiler.startSampling", {
		samplingInterval: Number(process.env.BENCH_HEAP_INTERVAL ?? 256),
		includeObjectsCollectedByMajorGC: true,
		includeObjectsCollectedByMinorGC: true,
	});
	const name = instanceName();
	process.on("exit", () => {
		// A session on the process's own thread answers synchronously: usable in an exit handler.
		session.post("HeapProfiler.stopSampling", (error, result) => {
			if (error) throw error;
			const byFunction = new Map();
			// BENCH_HEAP_CALLERS=N names each site with its N nearest scripted callers too, to tell
			// apart the callers of a shared function (`decode`, `JSON.stringify`'s caller, …).
			const callers = Number(process.env.BENCH_HEAP_CALLERS ?? 0);
			// A built-in (no script: `join`, `split`, `then`) is named with its nearest scripted caller.
			const walk = (node, chain) => {
				const { functionName, url, lineNumber } = node.callFrame;
				const file = url.replace(/^.*?\/(packages|node_modules)\//, "");
				const caller = chain[0] ?? "(root)";
				const here = `${functionName || "(anonymous)"} ${file}:${lineNumber + 1}`;
				const below = url ? [here, ...chain].slice(0, callers + 1) : chain;
				if (node.selfSize > 0) {
					const site = url
						? below.join(" < ")
						: [`${functionName || "(anonymous)"} < ${caller}`, ...chain.slice(1, callers + 1)].join(" < ");
					byFunction.set(site, (byFunction.get(site) ?? 0) + node.selfSize);
				}
				for (const child of node.children) walk(child, below);
			};
			walk(result.profile.head, []);
			writeFileSync(join(dir, `${name}.json`), JSON.stringify({ functions: [...byFunction] }));
		});
	});
}

function report(args) {
	const { messages, top, files } = countFiles(args, "count-heap.mjs");
	const matchIndex = args.indexOf("--match");
	const match = matchIndex >= 0 ? args[matchIndex + 1] : "";
	for (const { file, data } of files) {
		const functions = data.functions.sort((a, b) => b[1] - a[1]);
		const total = functions.reduce((sum, [, bytes]) => sum + bytes, 0);
		console.log(`\n${file}: ${Math.round(total / messages)} bytes of JS heap allocated per message`);
		for (const [site, bytes] of functions.filter(([site]) => site.includes(match)).slice(0, top)) {
			console.log(`${String(Math.round(bytes / messages)).padStart(8)}  ${site}`);
		}
	}
}
