// A schema change measured inside PostgreSQL: two databases of one throwaway cluster, B with
// BENCH_DDL_B run after the migrations (A with BENCH_DDL_A, if given), each holding BENCH_ROWS
// messages; then rounds alternating A and B of the four storage steps of a message
// (storage-sqlite/bench/message-steps.mjs) on one pooled connection each. Per message: the
// backend's CPU (/proc/<pid>/schedstat, in ns: the 10 ms ticks of /proc/<pid>/stat cannot
// resolve a statement) and the WAL written (a count, which the machine's load does not move);
// at the end, each database's inserted, updated and HOT-updated rows of `messages`. B's DDL
// and B's build (BENCH_STORE_MODULE_B) together measure a schema change and its statements.
// Reads the built package (dist/): `npm run build` first. As root, TMPDIR must be enterable by
// the cluster's user (chmod 755).
//
//   BENCH_DDL_B='drop index messages_tenant_status_idx' node packages/storage-pg/bench/schema-ab.mjs
import { readFileSync } from "node:fs";
import pg from "pg";
import { findPostgresBin, startCluster } from "../../../test/pg/cluster.mjs";
import { prefill, runSteps } from "../../storage-sqlite/bench/message-steps.mjs";

// BENCH_STORE_MODULE: another build for both sides; BENCH_STORE_MODULE_B: B's statements from
// another build (a copy of dist/ with the change), A's from this one.
const moduleA = process.env.BENCH_STORE_MODULE ?? "../dist/index.js";
const stores = {
	a: (await import(moduleA)).createPgStore,
	b: (await import(process.env.BENCH_STORE_MODULE_B ?? moduleA)).createPgStore,
};

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const COUNT = Number(process.env.BENCH_MESSAGES ?? 200);
const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);

const bin = findPostgresBin();
if (!bin) throw new Error("PostgreSQL is not installed");
const cluster = await startCluster(bin);
const admin = new pg.Client({ connectionString: cluster.url });
await admin.connect();

const cpuNs = (pid) => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
const walBytes = async () => {
	const { rows } = await admin.query("select pg_current_wal_lsn()::text as lsn");
	const [high, low] = rows[0].lsn.split("/").map((part) => Number.parseInt(part, 16));
	return high * 2 ** 32 + low;
};
const urlOf = (name) => {
	const url = new URL(cluster.url);
	url.pathname = `/schema_ab_${name}`;
	return url.toString();
};
async function execute(url, sql) {
	const client = new pg.Client({ connectionString: url });
	await client.connect();
	try {
		return await client.query(sql);
	} finally {
		await client.end();
	}
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const figure = (values) =>
	`${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;

const sides = [];
let keepOpen = null;
try {
	for (const [name, ddl] of [
		["a", process.env.BENCH_DDL_A],
		["b", process.env.BENCH_DDL_B],
	]) {
		await admin.query(`create database schema_ab_${name}`);
		const store = await stores[name]({ url: urlOf(name), poolSize: 1 });
		sides.push({ name, store, cpuUs: [], walBytes: [] });
		if (ddl) await execute(urlOf(name), ddl);
		await prefill(store, ROWS);
	}
	// Warm each backend's caches and prepared statements (a statement is planned afresh for its
	// first five executions on a connection); the id sequences' DDL connection closes in 1 s.
	for (const side of sides) await runSteps(side.store, 50);
	await new Promise((resolve) => setTimeout(resolve, 1500));
	for (const side of sides) {
		const { rows } = await admin.query(
			"select pid from pg_stat_activity where datname = $1 and backend_type = 'client backend'",
			[`schema_ab_${side.name}`],
		);
		side.pids = rows.map((row) => row.pid);
	}
	// pg-pool closes a connection idle for 10 s: each side's stays open while the other runs.
	keepOpen = setInterval(() => {
		for (const side of sides) side.store.messages.getById("none").catch(() => {});
	}, 2000);
	for (let round = 0; round < ROUNDS; round++) {
		for (const side of round % 2 ? [...sides].reverse() : sides) {
			const wal0 = await walBytes();
			const cpu0 = side.pids.reduce((sum, pid) => sum + cpuNs(pid), 0);
			await runSteps(side.store, COUNT);
			side.cpuUs.push((side.pids.reduce((sum, pid) => sum + cpuNs(pid), 0) - cpu0) / COUNT / 1000);
			side.walBytes.push(((await walBytes()) - wal0) / COUNT);
		}
	}
	clearInterval(keepOpen);
	// A backend reports its counters when idle, at most once a second.
	await new Promise((resolve) => setTimeout(resolve, 1500));
	console.log(`schema A/B: ${COUNT} messages × ${ROUNDS} rounds alternating, on ${ROWS} rows`);
	for (const side of sides) {
		const { rows } = await execute(
			urlOf(side.name),
			"select n_tup_ins, n_tup_upd, n_tup_hot_upd from pg_stat_user_tables where relname = 'messages'",
		);
		const { n_tup_ins, n_tup_upd, n_tup_hot_upd } = rows[0];
		console.log(
			`    ${side.name}: backend CPU µs a message ${figure(side.cpuUs)}; WAL bytes a message ${figure(side.walBytes)}; messages inserted ${n_tup_ins}, updated ${n_tup_upd}, HOT ${n_tup_hot_upd}`,
		);
	}
	const [a, b] = sides;
	console.log(`    B ÷ A backend CPU, round by round: ${b.cpuUs.map((v, i) => (v / a.cpuUs[i]).toFixed(2)).join(" ")}`);
} finally {
	clearInterval(keepOpen);
	for (const side of sides) await side.store.close();
	await admin.end();
	cluster.stop();
}
