// Issue #8 benchmark: delivered messages per second with 1, 2 and 3 sender instances on one
// PostgreSQL database (shared blob directory and master key), against the single SQLite
// instance, in the same run. Same traffic as the throughput bench (5a): 10 KB EDI, sha256 +
// aes256 + compression + signed sync MDN over loopback HTTPS, to one receiving instance.
// PostgreSQL is a throwaway cluster (test/pg/cluster.mjs) unless PG_TEST_URL is set; the senders
// reach it through its Unix socket (BENCH_PG_TCP=1: over loopback TCP, as before stop 27).
// BENCH_PG_STATS=1 prints, after each PostgreSQL run, the rows it wrote per table and message
// (HOT updates apart) and its WAL bytes per message: counts that do not move with the load.
// BENCH_PG_WAITS=1 samples, every 10 ms during each PostgreSQL run, the senders' backends waiting
// on a lock (pg_stat_activity), and prints the mean waiting and their wait per message.
// Each run prints the POST latency (the submissions': 202 when committed) at p50 and p99, and
// the senders' CPU split into user and kernel time, with how often they were preempted.
// BENCH_CPU_PROFILE=dir profiles every server process (lib.mjs's startServer); each run then
// names its processes' pids, so that a profile file (CPU.<date>.<time>.<pid>.0.001.cpuprofile:
// the main thread's) is read as the sender or the receiver it was (BENCH_PIDS=1: the pids
// alone, e.g. for `perf record -a` and `perf report --pid`).
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { findPostgresBin, startCluster } from "../../../test/pg/cluster.mjs";
import {
	connect,
	cpuSeconds,
	cpuTimes,
	createPki,
	describeCurve,
	setupTenant,
	startServer,
	submitAll,
	summary,
	WARMUP,
	WARMUP_WINDOW,
	warmUp,
} from "./lib.mjs";
import { describeStats, pgTableStats } from "./pg-table-stats.mjs";

/** BENCH_PG_STATS=1: what each PostgreSQL run wrote, per message (pg-table-stats.mjs). */
const PG_STATS = process.env.BENCH_PG_STATS === "1";
/** BENCH_PG_WAITS=1: lock waits of each PostgreSQL run, sampled (lockWaits). */
const PG_WAITS = process.env.BENCH_PG_WAITS === "1";

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 1500);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const segment = "LIN*1*BP*0123456789*VP*ABC-123~PO1*1*10*EA*9.95**BP*0123456789~PID*F****WIDGET, BLUE~\n";
const edi =
	`ISA*00*          *00*          *ZZ*ALPHA*ZZ*BETA~\n${segment.repeat(Math.ceil(10240 / segment.length))}`.slice(
		0,
		10240,
	);

let cluster = null;
let maintenanceUrl = process.env.PG_TEST_URL ?? null;
if (!maintenanceUrl) {
	const bin = findPostgresBin();
	if (!bin) throw new Error("PostgreSQL is not installed (or set PG_TEST_URL)");
	cluster = await startCluster(bin);
	maintenanceUrl = cluster.url;
	// An interrupted bench must not leave its cluster running.
	for (const signal of ["SIGINT", "SIGTERM"]) {
		process.once(signal, () => {
			cluster.stop();
			process.exit(130);
		});
	}
}
let databases = 0;

/**
 * CPU seconds of the PostgreSQL server: the postmaster and its children (one backend per
 * connection), but for the backends in `excluded` (the bench's own delivery poll).
 */
function postgresCpuSeconds(excluded = []) {
	if (!cluster) return 0;
	const postmaster = Number(readFileSync(join(cluster.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
	let total = cpuSeconds(postmaster);
	for (const entry of readdirSync("/proc")) {
		if (!/^\d+$/.test(entry) || excluded.includes(Number(entry))) continue;
		try {
			const fields = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1].split(" ");
			if (Number(fields[1]) === postmaster) total += cpuSeconds(Number(entry));
		} catch {
			// The process ended between the listing and the read.
		}
	}
	return total;
}

/**
 * Context switches of PostgreSQL's backends (voluntary: a wait on a lock or the socket; not
 * voluntary: preempted), but for those in `excluded`; a count the load moves little.
 */
function postgresSwitches(excluded = []) {
	if (!cluster) return 0;
	const postmaster = Number(readFileSync(join(cluster.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
	let total = 0;
	for (const entry of readdirSync("/proc")) {
		if (!/^\d+$/.test(entry) || excluded.includes(Number(entry))) continue;
		try {
			const status = readFileSync(`/proc/${entry}/status`, "utf8");
			if (Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) !== postmaster) continue;
			for (const m of status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)/gm)) total += Number(m[1]);
		} catch {
			// The process ended between the listing and the read.
		}
	}
	return total;
}

async function admin(sql) {
	const client = new pg.Client({ connectionString: maintenanceUrl });
	await client.connect();
	try {
		await client.query(sql);
	} finally {
		await client.end();
	}
}

/** One run: `instances` senders on `storage`; delivered messages per second. */
async function run(storage, instances) {
	const pki = createPki();
	const shared = mkdtempSync(join(tmpdir(), "as2kit-bench-shared-"));
	let databaseUrl = null;
	let dbName = null;
	if (storage === "pg") {
		dbName = `as2kit_bench_${process.pid}_${++databases}`;
		await admin(`create database ${dbName}`);
		const url = new URL(maintenanceUrl);
		url.pathname = `/${dbName}`;
		// The senders reach the bench's own cluster as a deployment on one host would: through its
		// Unix socket (README, "Running several instances"); BENCH_PG_TCP=1 keeps loopback TCP.
		if (cluster && process.env.BENCH_PG_TCP !== "1") url.searchParams.set("host", dirname(cluster.dataDir));
		databaseUrl = url.toString();
	}
	const masterKey = randomBytes(32).toString("hex");
	const senders = [];
	let statsBefore = null;
	const receiver = await startServer("receiver", pki);
	try {
		for (let i = 0; i < instances; i++) {
			const env =
				storage === "pg"
					? { DATABASE_URL: databaseUrl, BLOB_DIR: join(shared, "blobs"), AS2_MASTER_KEY: masterKey }
					: {};
			senders.push(await startServer(`sender${i}`, pki, env));
		}
		if (process.env.BENCH_CPU_PROFILE || process.env.BENCH_PIDS === "1")
			console.log(
				`    profiles: ${storage} senders ${senders.map((s) => s.child.pid).join(", ")}, receiver ${receiver.child.pid}`,
			);
		const ta = await setupTenant(senders[0], "Alpha");
		const tb = await setupTenant(receiver, "Beta");
		const partner = await connect(senders[0], ta, receiver, tb, pki, {
			sign: true,
			encrypt: true,
			compress: true,
			mdn_mode: "sync",
			mdn: { signed: true },
		});
		await connect(receiver, tb, senders[0], ta, pki);
		const delivered =
			storage === "pg"
				? await pgCounter(databaseUrl, ta.tenantId)
				: sqliteCounter(join(senders[0].dir, "as2.sqlite"), ta.tenantId);
		const waits = PG_WAITS && databaseUrl ? await lockWaits(databaseUrl) : null;
		// The poll's and the sampler's own backends are the bench's, not the senders' database work.
		const excluded = [delivered.backendPid, waits?.backendPid].filter(Boolean);
		const submitOne = async (n) => {
			const r = await senders[n % instances].call("POST", "/v1/messages", {
				token: ta.key,
				body: { partner_id: partner, content_type: "application/edi-x12", payload: { content: edi } },
			});
			if (r.status !== 202) throw new Error(`POST ${r.status} ${r.text}`);
		};
		// Polled the sooner the fewer are left: each poll is a query PostgreSQL answers on the
		// senders' cores, while the end of a phase is still seen within 25 ms.
		const settled = async () => {
			const deadline = performance.now() + 300_000;
			for (let left = await delivered.unfinished(); left > 0; left = await delivered.unfinished()) {
				if (performance.now() > deadline) throw new Error("messages were not delivered in 5 minutes");
				await new Promise((r) => setTimeout(r, Math.min(500, Math.max(25, left))));
			}
		};
		// Warm-up, not measured (lib.mjs, WARMUP): its windows are the cold-start curve.
		const coldStart = await warmUp({
			round: async (size) => {
				await submitAll(size, CONCURRENCY, submitOne);
				await settled();
			},
			pids: [...senders.map((s) => s.child.pid), receiver.child.pid],
		});
		// After the warm-up: the statistics are the measured messages'.
		if (PG_STATS && databaseUrl) statsBefore = await pgTableStats(databaseUrl);
		const cpu0 = {
			senders: senders.reduce((sum, s) => sum + cpuSeconds(s.child.pid), 0),
			sendersSplit: senderSplit(senders),
			receiver: cpuSeconds(receiver.child.pid),
			postgres: postgresCpuSeconds(excluded),
			switches: postgresSwitches(excluded),
			poll: delivered.backendPid ? cpuSeconds(delivered.backendPid) : 0,
		};
		const started = performance.now();
		waits?.start();
		const latencies = [];
		await submitAll(MESSAGES, CONCURRENCY, async (n) => {
			const sent = performance.now();
			await submitOne(n);
			latencies.push(performance.now() - sent);
		});
		await settled();
		const elapsedMs = performance.now() - started;
		const perSecond = (MESSAGES / elapsedMs) * 1000;
		const waited = await waits?.stop();
		const switches = postgresSwitches(excluded) - cpu0.switches;
		const { delivered: done, failed } = await delivered.count();
		if (failed || done !== WARMUP + MESSAGES)
			throw new Error(`${done} of ${WARMUP + MESSAGES} delivered, ${failed} failed`);
		const perMessageMs = (seconds) => (seconds * 1000) / MESSAGES;
		const split = senderSplit(senders);
		const cpuMs = {
			senders: perMessageMs(senders.reduce((sum, s) => sum + cpuSeconds(s.child.pid), 0) - cpu0.senders),
			sendersUser: perMessageMs(split.user - cpu0.sendersSplit.user),
			sendersKernel: perMessageMs(split.system - cpu0.sendersSplit.system),
			sendersPreempted: (split.preempted - cpu0.sendersSplit.preempted) / MESSAGES,
			receiver: perMessageMs(cpuSeconds(receiver.child.pid) - cpu0.receiver),
			postgres: perMessageMs(postgresCpuSeconds(excluded) - cpu0.postgres),
			poll: perMessageMs((delivered.backendPid ? cpuSeconds(delivered.backendPid) : 0) - cpu0.poll),
		};
		await delivered.close();
		latencies.sort((a, b) => a - b);
		const post = { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
		const lockWait = waited && {
			...waited,
			// Little's law: the mean number waiting times the run's time is the time waited.
			msPerMessage: (waited.meanWaiting * elapsedMs) / MESSAGES,
			switchesPerMessage: switches / MESSAGES,
		};
		return { perSecond, cpuMs, post, lockWait, coldStart };
	} finally {
		await Promise.all([...senders, receiver].map((s) => s.stop()));
		// The senders' backends have exited, so their counters are in the statistics. A failed read
		// must not hide the error that ended the run.
		if (statsBefore)
			await pgTableStats(databaseUrl).then(
				(after) => {
					for (const line of describeStats(statsBefore, after, MESSAGES)) console.log(`      ${line}`);
				},
				(error) => console.log(`      PostgreSQL statistics not read: ${error.message}`),
			);
		pki.cleanup();
		rmSync(shared, { recursive: true, force: true });
		if (dbName) await admin(`drop database if exists ${dbName} with (force)`);
	}
}

/**
 * The senders' user and kernel CPU seconds, and how often they were taken off their core while
 * runnable (involuntary context switches: on two busy cores, mostly a woken PostgreSQL backend
 * or the receiver). A socket write that wakes a backend may be preempted inside the call: a
 * wall-clock profile charges that wait to the write, the CPU figures do not
 * (performance-storage.md, "The PostgreSQL sender's driver side (stop 34)").
 */
function senderSplit(senders) {
	let user = 0;
	let system = 0;
	let preempted = 0;
	for (const { child } of senders) {
		const times = cpuTimes(child.pid);
		user += times.user;
		system += times.system;
		preempted += Number(
			/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? 0,
		);
	}
	return { user, system, preempted };
}

/**
 * The poll for the end of a run reads only the messages still in flight (queued, processing,
 * sent: the tenant's status index), so that its cost does not grow with the messages stored;
 * the totals are counted once, at the end. Its backend's CPU is left out of PostgreSQL's
 * figure (a count of every row each 25 ms was 0.22–0.28 ms per message at 15–23/s).
 */
const UNFINISHED =
	"select count(*) as n from messages where tenant_id = $1 and status in ('queued', 'processing', 'sent')";
const TOTALS =
	"select count(*) filter (where status = 'delivered') as delivered, count(*) filter (where status = 'failed') as failed from messages";

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

/**
 * The senders' backends waiting on a lock (a row's transaction: `transactionid`, a tuple, …),
 * sampled every 10 ms from pg_stat_activity on a connection of its own (left out of
 * PostgreSQL's CPU like the poll's). A count, not a time: the mean waiting times the run's
 * time is the time waited (Little's law).
 */
async function lockWaits(url) {
	const client = new pg.Client({ connectionString: url });
	await client.connect();
	const { rows } = await client.query("select pg_backend_pid() as pid");
	const text =
		"select count(*) filter (where wait_event_type = 'Lock') as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()";
	let samples = 0;
	let waiting = 0;
	let withWaiter = 0;
	let running = null;
	let stopped = false;
	return {
		backendPid: rows[0].pid,
		start() {
			running = (async () => {
				while (!stopped) {
					const n = Number((await client.query({ name: "as2kit_bench_waits", text, rowMode: "array" })).rows[0][0]);
					samples++;
					waiting += n;
					if (n > 0) withWaiter++;
					await new Promise((r) => setTimeout(r, 10));
				}
			})();
		},
		async stop() {
			stopped = true;
			await running;
			await client.end();
			return {
				samples,
				meanWaiting: samples ? waiting / samples : 0,
				shareWithWaiter: samples ? withWaiter / samples : 0,
			};
		},
	};
}

async function pgCounter(url, tenantId) {
	const client = new pg.Client({ connectionString: url });
	await client.connect();
	const { rows } = await client.query("select pg_backend_pid() as pid");
	const count = async (text, values, name) =>
		(await client.query({ name, text, values, rowMode: "array" })).rows[0].map(Number);
	return {
		backendPid: rows[0].pid,
		unfinished: async () => (await count(UNFINISHED, [tenantId], "as2kit_bench_unfinished"))[0],
		async count() {
			const [delivered, failed] = await count(TOTALS, []);
			return { delivered, failed };
		},
		close: () => client.end(),
	};
}

function sqliteCounter(path, tenantId) {
	const db = new Database(path, { readonly: true });
	const unfinished = db.prepare(UNFINISHED.replace("$1", "?")).pluck();
	const totals = db.prepare(TOTALS);
	return {
		backendPid: null,
		unfinished: async () => unfinished.get(tenantId),
		count: async () => totals.get(),
		close: async () => db.close(),
	};
}

const configurations = (process.env.BENCH_CONFIGS ?? "sqlite:1,pg:1,pg:2,pg:3")
	.split(",")
	.map((c) => c.split(":"))
	.map(([storage, n]) => [storage, Number(n)]);
const results = new Map(configurations.map(([s, n]) => [`${s}×${n}`, []]));
/** The warm-up's first window of each run: the figure before stop 35 (lib.mjs, WARMUP). */
const coldResults = new Map(configurations.map(([s, n]) => [`${s}×${n}`, []]));
try {
	// Interleaved, so that drift of the machine over the run touches every configuration alike.
	for (let r = 0; r < RUNS; r++) {
		for (const [storage, instances] of configurations) {
			const { perSecond, cpuMs, post, lockWait, coldStart } = await run(storage, instances);
			results.get(`${storage}×${instances}`).push(perSecond);
			coldResults.get(`${storage}×${instances}`).push(coldStart[0]?.perSecond);
			console.log(
				`    run ${r + 1}: ${storage} × ${instances}: ${perSecond.toFixed(0)} delivered/s; CPU per message: senders ${cpuMs.senders.toFixed(2)} ms, PostgreSQL ${cpuMs.postgres.toFixed(2)} ms (not counted: the bench's poll ${cpuMs.poll.toFixed(2)}), receiver ${cpuMs.receiver.toFixed(2)} ms; POST p50 ${post.p50.toFixed(0)} ms, p99 ${post.p99.toFixed(0)} ms`,
			);
			console.log(
				`      senders: user ${cpuMs.sendersUser.toFixed(2)} ms, kernel ${cpuMs.sendersKernel.toFixed(2)} ms a message; preempted ${cpuMs.sendersPreempted.toFixed(1)} times a message`,
			);
			if (coldStart.length)
				console.log(
					`      cold start, CPU per message (${[...Array(instances)].map((_, i) => `sender ${i + 1}`).join(" / ")} / receiver) and delivered/s through message: ${describeCurve(coldStart)}`,
				);
			if (lockWait)
				console.log(
					`      lock waits: ${lockWait.meanWaiting.toFixed(2)} backends waiting on average (${(lockWait.shareWithWaiter * 100).toFixed(0)} % of ${lockWait.samples} samples), ${lockWait.msPerMessage.toFixed(1)} ms waited a message; backends' context switches ${lockWait.switchesPerMessage.toFixed(1)} a message`,
				);
		}
	}
} finally {
	cluster?.stop();
}
// Without a SQLite single instance in BENCH_CONFIGS there is nothing to compare with.
const sqliteSingle = results.get("sqlite×1");
const reference = sqliteSingle ? summary(sqliteSingle).median : undefined;
console.log(
	`(8) delivered/s by instances, ${MESSAGES} × 10 KB EDI after a warm-up of ${WARMUP}, sha256 + aes256 + zlib + signed sync MDN, ${cpus().length} cores, one receiver`,
);
for (const [name, values] of results) {
	const s = summary(values);
	console.log(
		`    ${name.padEnd(9)} median ${s.median.toFixed(0)}/s (min ${s.min.toFixed(0)}, max ${s.max.toFixed(0)}, noise ${s.noisePct.toFixed(1)}%)${reference ? `  ${(s.median / reference).toFixed(2)}× SQLite single` : ""}`,
	);
}
// The same from a cold start: the warm-up's first window (what this bench measured before stop 35).
const coldSingle = coldResults.get("sqlite×1")?.filter((v) => v !== undefined);
const coldReference = coldSingle?.length ? summary(coldSingle).median : undefined;
for (const [name, values] of coldResults) {
	const measured = values.filter((v) => v !== undefined);
	if (!measured.length) continue;
	const s = summary(measured);
	console.log(
		`    ${name.padEnd(9)} cold start, the first ${WARMUP_WINDOW}: median ${s.median.toFixed(0)}/s (min ${s.min.toFixed(0)}, max ${s.max.toFixed(0)})${coldReference ? `  ${(s.median / coldReference).toFixed(2)}× SQLite single` : ""}`,
	);
}
