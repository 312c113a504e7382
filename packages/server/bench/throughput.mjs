// Issue #5 benchmark: two server processes on this machine, 10 KB EDI, sha256 + aes256 +
// compression + signed sync MDN, live over loopback HTTPS. Delivered messages per second
// (target ≥ 300/s) and p99 latency of POST /v1/messages under that load (target < 20 ms).
//
// Each run has two phases on the same pair of servers, after a warm-up (BENCH_WARMUP messages,
// 4,500 by default; lib.mjs says why): its windows are printed as the cold-start curve, the CPU
// per message of each process over the first 1,500 messages after its start, the next 1,500, …
// 1. capacity: BENCH_CONCURRENCY clients submit BENCH_MESSAGES as fast as they are accepted;
//    delivered/s is measured from the first POST to the last delivery, and the CPU time each
//    process spent per message is read from /proc. The CPU figure does not depend on what else
//    the machine is running, so it also gives the rate the pair would sustain with a core each.
// 2. latency under load: POSTs arrive on a fixed schedule (open loop) at BENCH_RATE per second
//    (default: the target, 300/s, or 80% of the capacity just measured when that is lower), for
//    BENCH_SECONDS; p99 of the POST latency is measured there. A closed loop of N clients would
//    measure N / throughput (Little's law), not the server's latency.
//
// Each run is made twice, with wire capture on (the default, AS2_WIRE_CAPTURE=1) and off, in
// alternating order, so that the cost of capture (issue #18: at most 10 % of delivered/s) is
// read from the same run on the same machine.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import {
	connect,
	cpuSeconds,
	cpuTimes,
	createPki,
	describeCurve,
	percentile,
	setupTenant,
	startServer,
	submitAll,
	summary,
	WARMUP,
	warmUp,
} from "./lib.mjs";

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 3000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const TARGET_RATE = 300;
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : null;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CAPTURE_ONLY = process.env.BENCH_CAPTURE;
const segment = "LIN*1*BP*0123456789*VP*ABC-123~PO1*1*10*EA*9.95**BP*0123456789~PID*F****WIDGET, BLUE~\n";
const edi =
	`ISA*00*          *00*          *ZZ*ALPHA*ZZ*BETA~\n${segment.repeat(Math.ceil(10240 / segment.length))}`.slice(
		0,
		10240,
	);

async function run(capture) {
	const pki = createPki();
	const env = { AS2_WIRE_CAPTURE: capture ? "1" : "0" };
	const a = await startServer("sender", pki, env);
	const b = await startServer("receiver", pki, env);
	try {
		const ta = await setupTenant(a, "Alpha");
		const tb = await setupTenant(b, "Beta");
		const partner = await connect(a, ta, b, tb, pki, {
			sign: true,
			encrypt: true,
			compress: true,
			sign_algorithm: "SHA256withRSA",
			encrypt_algorithm: "AES256_CBC",
			mdn_mode: "sync",
			mdn: { signed: true },
		});
		await connect(b, tb, a, ta, pki);
		const db = new Database(`${a.dir}/as2.sqlite`, { readonly: true });
		const submit = async () => {
			const t0 = performance.now();
			const r = await a.call("POST", "/v1/messages", {
				token: ta.key,
				body: { partner_id: partner, content_type: "application/edi-x12", payload: { content: edi } },
			});
			if (r.status !== 202) throw new Error(`POST ${r.status} ${r.text}`);
			return performance.now() - t0;
		};
		const deliveredAll = async (count) => {
			for (let i = 0; i < 12000; i++) {
				const delivered = db.prepare("select count(*) n from messages where status = 'delivered'").get().n;
				const failed = db.prepare("select count(*) n from messages where status = 'failed'").get().n;
				if (failed) throw new Error(`${failed} messages failed`);
				if (delivered >= count) return;
				await new Promise((r) => setTimeout(r, 25));
			}
			throw new Error("messages were not delivered in 5 minutes");
		};

		// Warm-up, not measured (lib.mjs, WARMUP): its windows are the cold-start curve.
		let warmed = 0;
		const coldStart = await warmUp({
			round: async (size) => {
				await submitAll(size, CONCURRENCY, submit);
				warmed += size;
				await deliveredAll(warmed);
			},
			pids: [a.child.pid, b.child.pid],
		});

		// Phase 1: capacity.
		const cpu0 = [cpuSeconds(a.child.pid), cpuSeconds(b.child.pid)];
		const system0 = [cpuTimes(a.child.pid).system, cpuTimes(b.child.pid).system];
		const started = performance.now();
		await submitAll(MESSAGES, CONCURRENCY, submit);
		await deliveredAll(WARMUP + MESSAGES);
		const perSecond = (MESSAGES / (performance.now() - started)) * 1000;
		const cpuMs = [cpuSeconds(a.child.pid) - cpu0[0], cpuSeconds(b.child.pid) - cpu0[1]].map(
			(s) => (s * 1000) / MESSAGES,
		);
		const systemMs = [cpuTimes(a.child.pid).system - system0[0], cpuTimes(b.child.pid).system - system0[1]].map(
			(s) => (s * 1000) / MESSAGES,
		);

		// Phase 2: POST latency at a fixed arrival rate.
		const rate = RATE ?? Math.min(TARGET_RATE, Math.floor(perSecond * 0.8));
		const total = Math.round(rate * SECONDS);
		const latencies = [];
		const phaseStart = performance.now();
		const phaseStartedAt = Date.now();
		const pending = [];
		const failures = [];
		// BENCH_LOOP_STALLS (loop-stalls.mjs): each process's event-loop delay over this phase, and
		// each POST's start on the clock the servers' stalls are timed by, to match them.
		const stalls = loopStalls([a.child.pid, b.child.pid]);
		for (let i = 0; i < total; i++) {
			const due = phaseStart + (i * 1000) / rate;
			const wait = due - performance.now();
			if (wait > 1) await new Promise((r) => setTimeout(r, wait));
			const startedAt = stalls.now();
			// Handled at once: a rejection left for Promise.all below would end the process as
			// unhandled before the servers are stopped.
			pending.push(
				submit().then(
					(ms) => {
						latencies.push(ms);
						stalls.post(startedAt, ms);
					},
					(error) => failures.push(error),
				),
			);
		}
		await Promise.all(pending);
		stalls.end();
		if (failures.length)
			throw new Error(`${failures.length} of ${total} POSTs failed; the first: ${failures[0].message}`);
		await deliveredAll(WARMUP + MESSAGES + total);
		// From the submission's commit to the partner's answer: how long a message waits for its send.
		const toDelivered = db
			.prepare("select delivered_at - created_at as ms from messages where created_at >= ?")
			.all(phaseStartedAt)
			.map((row) => row.ms);
		db.close();
		return {
			perSecond,
			cpuMs,
			systemMs,
			cpuBoundPerSecond: 1000 / Math.max(...cpuMs),
			rate,
			postP50: percentile(latencies, 50),
			postP99: percentile(latencies, 99),
			deliveredP50: percentile(toDelivered, 50),
			deliveredP99: percentile(toDelivered, 99),
			rss: [a.peakRssMb(), b.peakRssMb()],
			coldStart,
		};
	} finally {
		await a.stop();
		await b.stop();
		pki.cleanup();
	}
}

/**
 * The fixed-rate phase's marks for loop-stalls.mjs: a SIGUSR2 to every process at its start and
 * end, and the POSTs written to BENCH_LOOP_STALLS/posts-<pid>.json. Does nothing without it.
 */
function loopStalls(pids) {
	const dir = process.env.BENCH_LOOP_STALLS;
	if (!dir) return { now: () => 0, post() {}, end() {} };
	// A process without loop-stalls.mjs has no SIGUSR2 handler: the signal would end it.
	if (!process.env.NODE_OPTIONS?.includes("loop-stalls.mjs"))
		throw new Error("BENCH_LOOP_STALLS needs NODE_OPTIONS=--import=<repo>/packages/server/bench/loop-stalls.mjs");
	const mark = () => {
		for (const pid of [process.pid, ...pids]) process.kill(pid, "SIGUSR2");
	};
	const posts = [];
	mark();
	return {
		now: () => Number(process.hrtime.bigint()) / 1e6,
		post: (startedAt, ms) => posts.push([startedAt, ms]),
		end() {
			mark();
			writeFileSync(join(dir, `posts-${process.pid}.json`), JSON.stringify(posts));
		},
	};
}

const load = (await import("node:os")).loadavg()[0];
const results = [];
const withoutCapture = [];
for (let i = 0; i < RUNS; i++) {
	// Alternating which goes first, so neither always meets a warmer (or busier) machine.
	// BENCH_CAPTURE=on|off measures one mode only (while profiling, or comparing two builds).
	const order = (i % 2 === 0 ? [true, false] : [false, true]).filter(
		(capture) => !CAPTURE_ONLY || capture === (CAPTURE_ONLY === "on"),
	);
	for (const capture of order) {
		const r = await run(capture);
		(capture ? results : withoutCapture).push(r);
		console.log(
			`    run ${i + 1}${capture ? "" : " without wire capture"}: ${r.perSecond.toFixed(0)} delivered/s; CPU per message ${r.cpuMs.map((x) => x.toFixed(2)).join(" / ")} ms (sender / receiver; of it the kernel's ${r.systemMs.map((x) => x.toFixed(2)).join(" / ")}) → ${r.cpuBoundPerSecond.toFixed(0)}/s with a core each; POST at ${r.rate}/s: p50 ${r.postP50.toFixed(1)} ms p99 ${r.postP99.toFixed(1)} ms, submitted → delivered p50 ${r.deliveredP50.toFixed(0)} ms p99 ${r.deliveredP99.toFixed(0)} ms; peak RSS ${r.rss.map((x) => x.toFixed(0)).join(" / ")} MB`,
		);
		if (r.coldStart.length)
			console.log(
				`      cold start, CPU per message (sender / receiver) through message: ${describeCurve(r.coldStart)}`,
			);
	}
}
const range = (values, digits = 0) => {
	const s = summary(values);
	return `median ${s.median.toFixed(digits)} (min ${s.min.toFixed(digits)}, max ${s.max.toFixed(digits)}, noise ${s.noisePct.toFixed(1)}%)`;
};
console.log(
	`(5a) throughput, two instances, ${MESSAGES} × 10 KB EDI after a warm-up of ${WARMUP}, sha256 + aes256 + zlib + signed sync MDN over loopback HTTPS (load average at start ${load.toFixed(1)})`,
);
for (const [label, set] of [
	["wire capture on", results],
	["wire capture off", withoutCapture],
]) {
	if (!set.length) continue;
	console.log(`  ${label}:`);
	console.log(`    delivered/s: ${range(set.map((r) => r.perSecond))}  target ≥ 300/s`);
	console.log(
		`    CPU per message, sender: ${range(
			set.map((r) => r.cpuMs[0]),
			2,
		)} ms  target ≤ 3.0 ms`,
	);
	console.log(
		`    CPU per message, receiver: ${range(
			set.map((r) => r.cpuMs[1]),
			2,
		)} ms  target ≤ 3.0 ms`,
	);
	console.log(
		`    CPU-bound rate (one core per instance): ${range(set.map((r) => r.cpuBoundPerSecond))}/s  target ≥ 330/s`,
	);
	console.log(
		`    POST /v1/messages p99 at a fixed arrival rate: ${range(
			set.map((r) => r.postP99),
			1,
		)} ms  target < 20 ms`,
	);
	if (set[0].coldStart.length) {
		// The first window of the warm-up: what the bench measured before stop 35.
		const first = set.map((r) => r.coldStart[0]);
		console.log(
			`    cold start, the first ${first[0].through} messages after the servers' start, CPU per message: sender ${range(
				first.map((w) => w.cpuMs[0]),
				2,
			)} ms, receiver ${range(
				first.map((w) => w.cpuMs[1]),
				2,
			)} ms`,
		);
	}
}
if (results.length && withoutCapture.length) {
	const cost = (on, off) => `${((1 - on / off) * 100).toFixed(1)}%`;
	const median = (set, pick) => summary(set.map(pick)).median;
	// The CPU-bound rate does not depend on what else the machine runs: on a shared machine it is
	// the figure to read the cost from.
	console.log(
		`    wire capture costs ${cost(
			median(results, (r) => r.perSecond),
			median(withoutCapture, (r) => r.perSecond),
		)} of delivered/s, ${cost(
			median(results, (r) => r.cpuBoundPerSecond),
			median(withoutCapture, (r) => r.cpuBoundPerSecond),
		)} of the CPU-bound rate  target ≤ 10%`,
	);
}
