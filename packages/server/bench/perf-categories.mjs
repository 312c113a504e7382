// The categories of profile-categories.mjs in CPU time rather than wall time, from Linux perf's
// cpu-clock samples of one process (issue #20, "The sender's HTTP work (stop 34)"): V8's sampler
// charges a thread preempted in a loopback `writev` with the whole wait, so at load 9 its profile
// read 9.4 ms a message for the floor's sender against 3.2 ms of measured CPU. A cpu-clock sample
// is taken only while the process runs, kernel included (a sample each 1/HZ s of CPU).
//
//   npm run build
//   NODE_OPTIONS="--perf-basic-prof --interpreted-frames-native-stack" AS2_ALLOW_PRIVATE_TARGETS=1 \
//     perf record -e cpu-clock -F 2000 -g -o perf.data -- node packages/server/bench/throughput.mjs   # or floor.mjs
//   perf script -i perf.data --pid PID | node packages/server/bench/perf-categories.mjs --messages 1040 --hz 2000 [--top 40]
//
// (--perf-basic-prof writes /tmp/perf-PID.map for each process: remove them after.) Each sample
// is charged by the rules of categories.mjs to the first JS frame, from the leaf up, that one of
// them names; a sample without a JS frame by its native frames (TLS and the HTTP parser, GC,
// SQLite, V8's compiler). The HTTP/TLS samples are then split by owner, the first frame from the
// leaf up that says whose work it is: Node's HTTP server or HTTPS client, Hono, @hono/node-server,
// our source file, or the floor's script.
import { createInterface } from "node:readline";
import { rules, sourceOf } from "./categories.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
	const at = args.indexOf(name);
	return at < 0 ? fallback : Number(args[at + 1]);
};
const messages = option("--messages", 1);
const hz = option("--hz", 2000);
const top = option("--top", 40);

const categories = new Map();
const owners = new Map();
const ownersInKernel = new Map();
const leaves = new Map();
let samples = 0;
let inKernel = 0;
const add = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);

/** Whose HTTP work a sample is: the first frame from the leaf up that tells. */
function ownerOf(frames) {
	for (const frame of frames) {
		if (!frame.url) continue;
		const url = frame.url;
		if (url.includes("node_modules/@hono/node-server")) return "@hono/node-server";
		if (url.includes("node_modules/hono/")) return "hono";
		if (/\/server\/dist\//.test(url)) return `ours: ${sourceOf(url, frame.line).replace(/^server\/src\//, "")}`;
		if (url.includes("bench/floor")) return "floor.mjs";
		if (/^node:_http_(server|incoming)/.test(url)) return "Node's HTTP server";
		if (/^node:(_http_client|_http_agent|https)/.test(url)) return "Node's HTTPS client";
	}
	return null;
}

function nativeCategory(symbols) {
	if (/Scavenger|MarkCompact|Heap::|ConcurrentMarking|Sweeper|Evacuat/.test(symbols)) return "GC";
	if (/TLSWrap|SSL_|ssl3_|tls13|Parser::|llhttp|tcp_|sock_/.test(symbols)) return "HTTP/TLS";
	if (/sqlite3/.test(symbols)) return "SQL statements";
	if (/compiler::|Compile|interpreter::/.test(symbols)) return "V8 (compiler)";
	if (/uv__fs|uv__work/.test(symbols)) return "files (thread pool)";
	return "other native (no JS frame)";
}

function charge(frames) {
	if (frames.length === 0) return;
	samples++;
	const kernel = frames[0].kernel;
	if (kernel) inKernel++;
	let category = null;
	let js = false;
	for (const frame of frames) {
		if (!frame.url) continue;
		js = true;
		const source = sourceOf(frame.url, frame.line);
		category = rules.find(([, test]) => test(frame.name, source))?.[0] ?? null;
		if (category) break;
	}
	const symbols = frames.map((f) => f.symbol).join(" ");
	category ??= js
		? /Scavenger|MarkCompact|Heap::Scavenge|Heap::CollectGarbage/.test(symbols)
			? "GC"
			: "other (event loop, streams, promises)"
		: nativeCategory(symbols);
	add(categories, category);
	if (category !== "HTTP/TLS") return;
	const owner =
		ownerOf(frames) ??
		(/OnStreamRead|uv__read/.test(symbols)
			? "Node: a socket read before JS (TLS, parser)"
			: "Node: other (completions, timers)");
	add(owners, owner);
	if (kernel) add(ownersInKernel, owner);
	const first = frames.find((f) => f.url);
	add(
		leaves,
		`${owner} | ${first ? `${first.name || "(anonymous)"} ${first.url.replace(/^.*node_modules\//, "").replace(/^file:.*\//, "")}` : frames[0].symbol}${kernel ? " (kernel)" : ""}`,
	);
}

let frames = [];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
	if (line.trim() === "") {
		charge(frames);
		frames = [];
		continue;
	}
	// `\t    7faae0353e9c JS:~writevGeneric node:internal/stream_base_commons:123:23+0xdc (/tmp/perf-1.map)`
	const frame = /^\s+[0-9a-f]+ (.*) \((.*)\)$/.exec(line);
	if (!frame) continue;
	const [, symbol, dso] = frame;
	const js = /^JS:[~*^]?(.*) ((?:node:|file:)\S*?):(\d+):\d+/.exec(symbol);
	frames.push(
		js
			? { symbol, name: js[1], url: js[2], line: Number(js[3]) - 1, kernel: false }
			: { symbol, kernel: dso.includes("kernel") },
	);
}
charge(frames);

const ms = (n) => ((n * 1000) / hz / messages).toFixed(3);
console.log(`${samples} samples: ${ms(samples)} ms of CPU a message, of it the kernel's ${ms(inKernel)}`);
console.log("| category | ms a message |\n|---|---:|");
for (const [name, n] of [...categories].sort((a, b) => b[1] - a[1])) console.log(`| ${name} | ${ms(n)} |`);
console.log("\n| HTTP/TLS by owner | ms a message | of it the kernel's |\n|---|---:|---:|");
for (const [name, n] of [...owners].sort((a, b) => b[1] - a[1]))
	console.log(`| ${name} | ${ms(n)} | ${ms(ownersInKernel.get(name) ?? 0)} |`);
console.log("\nHTTP/TLS by owner and first JS frame, µs a message:");
for (const [name, n] of [...leaves].sort((a, b) => b[1] - a[1]).slice(0, top))
	console.log(`${(Number(ms(n)) * 1000).toFixed(1).padStart(7)}  ${name}`);
