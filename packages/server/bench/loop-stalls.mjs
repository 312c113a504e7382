// What stalls each process's event loop during the throughput bench's fixed-rate phase: a preload
// for the benchmarks (issue #20, the POST's p99 under load), and the report of what it wrote.
//
//   export BENCH_LOOP_STALLS=$(mktemp -d /as2kit-stalls-XXXX)
//   NODE_OPTIONS="--import=$PWD/packages/server/bench/loop-stalls.mjs" BENCH_CAPTURE=on BENCH_RUNS=1 \
//     BENCH_MESSAGES=1500 BENCH_RATE=300 BENCH_SECONDS=10 node packages/server/bench/throughput.mjs
//   node packages/server/bench/loop-stalls.mjs "$BENCH_LOOP_STALLS" [--over 5] [--slow 20] [--profiles DIR]
// (with BENCH_CPU_PROFILE=DIR BENCH_NODE_ARGS="--cpu-prof-interval 250" on the run, the stalls of
// the servers' own JavaScript are named by the project's function most of their samples were in)
//
// As a preload (BENCH_LOOP_STALLS set), in every process of the bench (the load generator and
// both servers; the main thread only):
// - `perf_hooks.monitorEventLoopDelay`, enabled between the two SIGUSR2 the bench sends at the
//   fixed-rate phase's start and end (throughput.mjs, with BENCH_LOOP_STALLS set only);
// - a heartbeat timer every millisecond: a gap over 2 ms between two beats is a stall, kept with
//   what the main thread did meanwhile by the kernel's account (/proc/thread-self/schedstat: time
//   on a CPU, time runnable but waiting for one, i.e. preempted by another process);
// - the SQLite statements run in that gap (better-sqlite3's run/get/all/iterate and exec, by
//   text, with their time), and the GCs that overlap it (PerformanceObserver, their kind);
// - the statements that found another connection's write lock (SQLITE_BUSY: the adapter retries
//   them after a pause, the loop free meanwhile), and the checkpoints of the adapter's thread
//   (timeCheckpoints); the process's CPU and new TLS connections over the phase.
// Times are CLOCK_MONOTONIC milliseconds (process.hrtime), the same clock in every process, so
// the bench's slow POSTs can be matched with the servers' stalls. At exit each process writes
// <dir>/<AS2_DATA_DIR's name or "bench-N">.json; throughput.mjs writes the POSTs of the phase
// (start, latency) to <dir>/posts-N.json. As a command, it prints the table of stall sources.
import { closeSync, openSync, readdirSync, readFileSync, readSync, writeFileSync } from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { constants, monitorEventLoopDelay, PerformanceObserver, performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { isMainThread } from "node:worker_threads";

const dir = process.env.BENCH_LOOP_STALLS;
const asCommand = process.argv[1] && import.meta.filename === process.argv[1];
/** A gap between two heartbeats longer than this is a stall (ms). */
const STALL_MS = 2;

/** CLOCK_MONOTONIC in ms: performance.now() is relative to a per-process origin. */
const originMs = Number(process.hrtime.bigint()) / 1e6 - performance.now();
const monotonicMs = (performanceMs = performance.now()) => originMs + performanceMs;

if (asCommand) report(process.argv.slice(2));
else if (dir && isMainThread) {
	preload(dir);
	timeCheckpoints(dir);
}

/**
 * The SQLite adapter's checkpoints run in an eval'd worker thread, which no --import preload
 * reaches: its source gets a prologue that appends each checkpoint over a millisecond at once to
 * <dir>/checkpoints-<pid>.jsonl (a worker may be ended without its exit handlers), to be matched
 * with the main thread's stalls.
 */
function timeCheckpoints(dir) {
	const file = join(dir, `checkpoints-${process.pid}.jsonl`);
	const threads = createRequire(import.meta.url)("node:worker_threads");
	const Worker = threads.Worker;
	const prologue = `{
		const { appendFileSync } = require("node:fs");
		const Database = require(require("node:worker_threads").workerData.driver);
		const pragma = Database.prototype.pragma;
		const origin = Number(process.hrtime.bigint()) / 1e6 - performance.now();
		Database.prototype.pragma = function (source, options) {
			const t0 = performance.now();
			try {
				return pragma.call(this, source, options);
			} finally {
				const ms = performance.now() - t0;
				if (ms > 1) appendFileSync(${JSON.stringify(file)}, JSON.stringify([origin + t0, ms, source]) + "\\n");
			}
		};
	}\n`;
	threads.Worker = class extends Worker {
		constructor(source, options) {
			const timed = options?.eval && String(source).includes("wal_checkpoint");
			super(timed ? prologue + source : source, options);
		}
	};
	syncBuiltinESMExports();
}

function preload(dir) {
	const histogram = monitorEventLoopDelay({ resolution: 1 });
	const phase = { start: null, end: null, delay: null, cpu: null, cpuMs: null, tls: null };
	// New TLS connections (the load generator's and the sender's outbound ones, the servers'
	// inbound ones): each a handshake, an RSA signature on the server's side.
	const tls = countTlsConnections();
	process.on("SIGUSR2", () => {
		if (phase.start === null) {
			phase.start = monotonicMs();
			phase.cpu = process.cpuUsage();
			phase.tls = { outbound: tls.outbound, inbound: tls.inbound };
			histogram.reset();
			histogram.enable();
		} else if (phase.end === null) {
			phase.end = monotonicMs();
			// The whole process's CPU over the phase (its threads too: checkpoints, libuv's pool, GC).
			const cpu = process.cpuUsage(phase.cpu);
			phase.cpuMs = (cpu.user + cpu.system) / 1000;
			phase.tls = {
				outbound: tls.outbound - phase.tls.outbound,
				inbound: tls.inbound - phase.tls.inbound,
				outboundAt: tls.outboundAt.filter((t) => t >= phase.start),
			};
			histogram.disable();
			const ms = (ns) => ns / 1e6;
			phase.delay = {
				p50: ms(histogram.percentile(50)),
				p99: ms(histogram.percentile(99)),
				max: ms(histogram.max),
				mean: ms(histogram.mean),
				count: histogram.count,
			};
		}
	});

	// Statements since the last beat: [text, ms] pairs.
	let statements = [];
	// When a statement found another connection's lock (the checkpoint thread's): the adapter
	// retries it after a pause, the loop free meanwhile, so the POSTs behind it wait unseen here.
	const busy = [];
	const timed = (text, call) => {
		const t0 = performance.now();
		try {
			return call();
		} catch (error) {
			if (String(error?.code).startsWith("SQLITE_BUSY")) busy.push([monotonicMs(t0), text.slice(0, 40)]);
			throw error;
		} finally {
			statements.push([text, performance.now() - t0]);
		}
	};
	wrapSqlite(timed);

	const gcs = [];
	const kinds = {
		[constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
		[constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
		[constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
		[constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb",
	};
	new PerformanceObserver((list) => {
		for (const entry of list.getEntries())
			gcs.push([monotonicMs(entry.startTime), entry.duration, kinds[entry.detail?.kind] ?? String(entry.detail?.kind)]);
	}).observe({ entryTypes: ["gc"] });

	// The main thread's schedstat: ns on a CPU, ns waiting on a run queue, timeslices.
	const fd = openSync("/proc/thread-self/schedstat", "r");
	const buffer = Buffer.alloc(128);
	const schedstat = () => {
		const n = readSync(fd, buffer, 0, buffer.length, 0);
		const [run, wait] = buffer.toString("latin1", 0, n).split(" ").map(Number);
		return { run, wait };
	};
	const stalls = [];
	let beats = 0;
	let last = performance.now();
	let lastSched = schedstat();
	const beat = setInterval(() => {
		const now = performance.now();
		const sched = schedstat();
		const gap = now - last;
		beats++;
		if (gap > STALL_MS) {
			const byText = new Map();
			let sqliteMs = 0;
			for (const [text, ms] of statements) {
				byText.set(text, (byText.get(text) ?? 0) + ms);
				sqliteMs += ms;
			}
			stalls.push({
				start: monotonicMs(last),
				ms: gap,
				runMs: (sched.run - lastSched.run) / 1e6,
				waitMs: (sched.wait - lastSched.wait) / 1e6,
				sqliteMs,
				statements: statements.length,
				top: [...byText]
					.sort((a, b) => b[1] - a[1])
					.slice(0, 3)
					.map(([text, ms]) => [text.replace(/\s+/g, " ").slice(0, 90), ms]),
			});
		}
		statements = [];
		last = now;
		lastSched = sched;
	}, 1);
	beat.unref();

	const name = process.env.AS2_DATA_DIR ? basename(process.env.AS2_DATA_DIR) : `bench-${process.pid}`;
	process.on("exit", () => {
		clearInterval(beat);
		closeSync(fd);
		writeFileSync(
			join(dir, `${name}.json`),
			JSON.stringify({ name, pid: process.pid, phase, beats, stalls, gcs, busy }),
		);
	});
}

/** Counts tls.connect calls (https' agents make their sockets with it) and servers' secure connections. */
function countTlsConnections() {
	const counts = { outbound: 0, inbound: 0, outboundAt: [] };
	const tls = createRequire(import.meta.url)("node:tls");
	const connect = tls.connect;
	tls.connect = function (...args) {
		counts.outbound++;
		counts.outboundAt.push(monotonicMs());
		return connect.apply(this, args);
	};
	const emit = tls.Server.prototype.emit;
	tls.Server.prototype.emit = function (event, ...args) {
		if (event === "secureConnection") counts.inbound++;
		return emit.call(this, event, ...args);
	};
	return counts;
}

/** Times every better-sqlite3 statement of the checkout being run (as count-queries.mjs resolves it). */
function wrapSqlite(timed) {
	const entry = process.argv[1] ?? "";
	const repo = entry.endsWith(join("packages", "server", "dist", "bin", "start.js"))
		? resolve(dirname(entry), "../../../..")
		: fileURLToPath(new URL("../../..", import.meta.url));
	try {
		const Database = createRequire(join(repo, "packages", "storage-sqlite", "package.json"))("better-sqlite3");
		const probe = new Database(":memory:");
		const statement = Object.getPrototypeOf(probe.prepare("SELECT 1"));
		probe.close();
		for (const method of ["run", "get", "all", "iterate"]) {
			const original = statement[method];
			statement[method] = function (...args) {
				return timed(this.source, () => original.apply(this, args));
			};
		}
		const exec = Database.prototype.exec;
		Database.prototype.exec = function (source) {
			return timed(source, () => exec.call(this, source));
		};
	} catch {}
}

function report(args) {
	const [folder] = args;
	const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
	const over = option("--over", 5);
	const profiles = args.includes("--profiles") ? args[args.indexOf("--profiles") + 1] : null;
	const slowMs = option("--slow", 20);
	if (!folder) {
		console.error("usage: node loop-stalls.mjs <dir> [--over 5] [--slow 20] [--profiles <BENCH_CPU_PROFILE dir>]");
		process.exit(1);
	}
	const files = readdirSync(folder).filter((f) => f.endsWith(".json") || f.endsWith(".jsonl"));
	const posts = files.filter((f) => f.startsWith("posts-")).flatMap((f) => JSON.parse(readFileSync(join(folder, f))));
	const processes = files
		.filter((f) => f.endsWith(".json") && !f.startsWith("posts-"))
		.map((f) => JSON.parse(readFileSync(join(folder, f))))
		.filter((p) => p.phase?.end != null);
	const role = (name) =>
		name.startsWith("bench-") ? "load generator" : (/-(sender|receiver)-/.exec(name)?.[1] ?? name);
	const all = [];
	for (const p of processes) {
		const inPhase = (t) => t >= p.phase.start && t <= p.phase.end;
		const gcs = p.gcs.filter(([t]) => inPhase(t));
		const profileFile =
			profiles && readdirSync(profiles).find((f) => f.endsWith(".cpuprofile") && f.split(".")[3] === String(p.pid));
		const profile = profileFile ? loadProfile(join(profiles, profileFile)) : null;
		const checkpointFile = join(folder, `checkpoints-${p.pid}.jsonl`);
		const checkpoints = files.includes(basename(checkpointFile))
			? readFileSync(checkpointFile, "utf8")
					.trim()
					.split("\n")
					.map((line) => JSON.parse(line))
					.filter(([t]) => inPhase(t))
			: [];
		if (checkpoints.length) {
			const ms = checkpoints.map(([, ms]) => ms).sort((a, b) => a - b);
			console.log(
				`${role(p.name)}: ${checkpoints.length} checkpoints over 1 ms in the phase (their thread), median ${ms[ms.length >> 1].toFixed(1)} ms, max ${ms.at(-1).toFixed(1)}`,
			);
		}
		for (const stall of p.stalls.filter((s) => inPhase(s.start) && s.ms > over)) {
			const end = stall.start + stall.ms;
			const gc = gcs.filter(([t, ms]) => t < end && t + ms > stall.start);
			const source = classify(stall, gc, over, profile);
			// A stall off the CPU or in a COMMIT while the checkpoint thread ran: the COMMIT's WAL
			// writes may wait for the pages the checkpoint's sync is writing back.
			const duringCheckpoint =
				/^(blocked|SQLite)/.test(source) && checkpoints.some(([t, ms]) => t < end && t + ms > stall.start);
			all.push({ ...stall, role: role(p.name), source: duringCheckpoint ? `${source}, during a checkpoint` : source });
		}
	}
	const seconds = Math.max(...processes.map((p) => p.phase.end - p.phase.start)) / 1000;
	const slow = posts.filter(([, ms]) => ms > slowMs);
	// Each POST over slowMs goes to the stall overlapping it the longest, of the two processes
	// whose event loops it goes through: the load generator's and the sender's (the receiver's
	// stalls delay it only through the CPU they take, which the sender's preemptions show).
	const blamed = new Map();
	const senderBusy = processes
		.filter((p) => role(p.name) === "sender")
		.flatMap((p) => (p.busy ?? []).filter(([t]) => t >= p.phase.start && t <= p.phase.end));
	const onThePath = all.filter((stall) => stall.role === "sender" || stall.role === "load generator");
	for (const [start, ms] of slow) {
		let best = null;
		let bestOverlap = 0;
		for (const stall of onThePath) {
			const overlap = Math.min(start + ms, stall.start + stall.ms) - Math.max(start, stall.start);
			if (overlap > bestOverlap) [best, bestOverlap] = [stall, overlap];
		}
		const lockWait = senderBusy.some(([t]) => t >= start && t <= start + ms);
		const key = best
			? `${best.role}\t${best.source}`
			: lockWait
				? "sender\twaiting for the write lock (SQLITE_BUSY, retried)"
				: "\tno stall over the threshold";
		blamed.set(key, (blamed.get(key) ?? 0) + 1);
	}
	// A POST that found no idle socket made a new one in its request() call: its start and the
	// load generator's tls.connect are the same moment, within the call.
	const connects = processes
		.filter((p) => role(p.name) === "load generator")
		.flatMap((p) => p.phase.tls?.outboundAt ?? []);
	const opened = [];
	for (const t of connects) {
		let post = null;
		for (const candidate of posts) if (candidate[0] <= t && (!post || candidate[0] > post[0])) post = candidate;
		if (post && t - post[0] < 1) opened.push(post);
	}
	const latencies = posts.map(([, ms]) => ms).sort((a, b) => a - b);
	const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * q) / 100))] ?? 0;
	console.log(
		`${posts.length} POSTs in ${seconds.toFixed(1)} s: p50 ${at(latencies, 50).toFixed(1)} ms, p99 ${at(latencies, 99).toFixed(1)} ms; ${slow.length} over ${slowMs} ms`,
	);
	if (connects.length) {
		const ms = opened.map(([, ms]) => ms).sort((a, b) => a - b);
		// Opened in bursts when the sender fell behind (every socket busy): handshakes at that moment.
		const bursts = connects.slice(1).filter((t, i) => t - connects[i] < 50).length;
		console.log(
			`${connects.length} new TLS connections of the load generator, ${bursts} within 50 ms of the one before; ${opened.length} POSTs opened one (latency median ${at(ms, 50).toFixed(1)} ms, max ${ms.at(-1)?.toFixed(1)}): ${opened.filter(([, ms]) => ms > slowMs).length} of the ${slow.length} over ${slowMs} ms`,
		);
	}
	console.log("\nevent-loop delay over the phase (monitorEventLoopDelay, ms):");
	for (const p of processes) {
		const d = p.phase.delay;
		const long = all.filter((s) => s.role === role(p.name));
		const own = long.filter((s) => s.runMs > over);
		const cpu =
			p.phase.cpuMs === undefined
				? ""
				: `${p.phase.tls ? `new TLS connections ${p.phase.tls.outbound} out, ${p.phase.tls.inbound} in; ` : ""}CPU ${(p.phase.cpuMs / posts.length).toFixed(2)} ms a POST (${((p.phase.cpuMs / (p.phase.end - p.phase.start)) * 100).toFixed(0)} % of a core); `;
		console.log(
			`  ${role(p.name).padEnd(15)} ${cpu}p50 ${d.p50.toFixed(1)}, p99 ${d.p99.toFixed(1)}, max ${d.max.toFixed(1)}; gaps over ${over} ms: ${long.length} (${((long.length / posts.length) * 1000).toFixed(1)} per 1,000 POSTs), of them ${own.length} with over ${over} ms on a CPU (${((own.length / posts.length) * 1000).toFixed(1)} per 1,000)`,
		);
	}
	console.log(
		`\nstalls over ${over} ms by source: per second, duration median (max) in ms, the main thread's time on a CPU / waiting for one (median), share of the POSTs over ${slowMs} ms`,
	);
	const groups = new Map();
	for (const stall of all) {
		const key = `${stall.role}\t${stall.source}`;
		groups.set(key, [...(groups.get(key) ?? []), stall]);
	}
	const median = (values) =>
		at(
			[...values].sort((a, b) => a - b),
			50,
		);
	const rows = [...groups].sort(
		(a, b) => (blamed.get(b[0]) ?? 0) - (blamed.get(a[0]) ?? 0) || b[1].length - a[1].length,
	);
	console.log("| process | source | per s | duration, ms | on a CPU / waiting, ms | POSTs over 20 ms |");
	console.log("| --- | --- | ---: | ---: | ---: | ---: |");
	for (const [key, stalls] of rows) {
		const [who, source] = key.split("\t");
		const durations = stalls.map((s) => s.ms);
		console.log(
			`| ${who} | ${source} | ${(stalls.length / seconds).toFixed(1)} | ${median(durations).toFixed(1)} (${Math.max(...durations).toFixed(1)}) | ${median(stalls.map((s) => s.runMs)).toFixed(1)} / ${median(stalls.map((s) => s.waitMs)).toFixed(1)} | ${(((blamed.get(key) ?? 0) / Math.max(1, slow.length)) * 100).toFixed(0)} % |`,
		);
	}
	const lockKey = "sender\twaiting for the write lock (SQLITE_BUSY, retried)";
	const inPhaseBusy = senderBusy.length;
	if (inPhaseBusy || blamed.get(lockKey))
		console.log(
			`| sender | waiting for the write lock (SQLITE_BUSY, retried) | ${(inPhaseBusy / seconds).toFixed(1)} | | | ${(((blamed.get(lockKey) ?? 0) / Math.max(1, slow.length)) * 100).toFixed(0)} % |`,
		);
	const none = blamed.get("\tno stall over the threshold");
	if (none) console.log(`| – | no stall over ${over} ms | | | | ${((none / slow.length) * 100).toFixed(0)} % |`);
}

/**
 * What a stall was, by what the main thread did in it: waiting for a CPU (another process ran:
 * the machine's load), a GC, SQLite statements (named by the one that took longest), or the
 * process's own JavaScript (the CPU profile says which: BENCH_CPU_PROFILE).
 */
function classify(stall, gcs, over, profile) {
	if (stall.runMs < over) {
		const offMs = stall.ms - stall.runMs - stall.waitMs;
		return stall.waitMs >= offMs ? "waiting for a CPU (preempted)" : "blocked off a CPU (a system call)";
	}
	// Statements and GCs are timed by the wall clock (a preemption in one counts in it): each
	// against the gap's wall time.
	const gcMs = gcs.reduce((sum, [, ms]) => sum + ms, 0);
	if (gcMs >= stall.ms / 2 && gcMs >= stall.sqliteMs) {
		const longest = gcs.reduce((a, b) => (b[1] > a[1] ? b : a));
		return `GC (${longest[2]})`;
	}
	if (stall.sqliteMs >= stall.ms / 2) return `SQLite: ${statementKind(stall.top[0]?.[0] ?? "")}`;
	return `JavaScript: ${profile?.frameIn(stall.start, stall.start + stall.ms) ?? "(no profile)"}`;
}

/**
 * A process's CPU profile (--cpu-prof: its clock is CLOCK_MONOTONIC in µs, as process.hrtime's),
 * answering which of the project's functions most samples in a time window were in: the deepest
 * frame of packages/*\/dist, else the sampled function itself.
 */
function loadProfile(file) {
	const profile = JSON.parse(readFileSync(file));
	const parent = new Map();
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
	const name = (frame) => `${frame.functionName || "(anonymous)"} ${basename(frame.url)}:${frame.lineNumber + 1}`;
	const label = new Map();
	const labelOf = (id) => {
		if (label.has(id)) return label.get(id);
		let own = null;
		for (let at = id; at !== undefined && own === null; at = parent.get(at)) {
			const frame = byId.get(at).callFrame;
			if (/\/packages\/[^/]+\/dist\//.test(frame.url)) own = name(frame);
		}
		const text = own ?? byId.get(id).callFrame.functionName ?? "(program)";
		label.set(id, text);
		return text;
	};
	const times = [];
	let t = profile.startTime;
	for (const delta of profile.timeDeltas) {
		t += delta;
		times.push(t / 1000);
	}
	return {
		frameIn(start, end) {
			const counts = new Map();
			for (let i = 0; i < times.length; i++) {
				if (times[i] < start || times[i] > end) continue;
				const text = labelOf(profile.samples[i]);
				counts.set(text, (counts.get(text) ?? 0) + 1);
			}
			const top = [...counts].sort((a, b) => b[1] - a[1])[0];
			return top ? top[0] : "(no sample)";
		},
	};
}

function statementKind(text) {
	if (/message_search/.test(text)) return "the search index's batch";
	if (/^COMMIT/.test(text)) return "a group's COMMIT";
	if (/^BEGIN/.test(text)) return "BEGIN (the write lock)";
	if (/jobs/.test(text)) return `the job queue (${text.slice(0, 40)})`;
	return text.slice(0, 60);
}
