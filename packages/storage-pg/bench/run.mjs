// `npm run bench -w @as2kit/storage-pg`: the storage side of one message, step by step
// (storage-sqlite/bench/message-steps.mjs, the same calls as SQLite's bench), on a database
// that already holds BENCH_ROWS messages, with the round trips each step makes and
// PostgreSQL's own CPU. PostgreSQL is a throwaway cluster (test/pg/cluster.mjs) unless
// PG_TEST_URL is set. Reads the built package (dist/): `npm run build` first.
import pg from "pg";
import { prefill, report, runSteps } from "../../storage-sqlite/bench/message-steps.mjs";
import { benchDatabase } from "./bench-database.mjs";

// BENCH_STORE_MODULE: another build of the package (a copy of dist/ from before a change), for A/B pairs.
const { createPgStore } = await import(process.env.BENCH_STORE_MODULE ?? "../dist/index.js");

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const COUNT = Number(process.env.BENCH_MESSAGES ?? 300);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
/**
 * Indexes to drop before measuring (comma-separated names), as in storage-sqlite's bench. On
 * PostgreSQL an UPDATE that changes an indexed column (a message's status does) writes a new
 * entry into every index of the row, not only the changed ones.
 */
const DROP = (process.env.BENCH_DROP_INDEXES ?? "").split(",").filter(Boolean);

const { url, postgresCpuUs, stop: stopDatabase } = await benchDatabase();

/** Counts the queries every pooled client sends (one round trip each). */
function countRoundTrips() {
	let queries = 0;
	const query = pg.Client.prototype.query;
	pg.Client.prototype.query = function (...args) {
		queries++;
		return query.apply(this, args);
	};
	return () => queries;
}

const database = `as2kit_storage_bench_${process.pid}`;
const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query(`create database ${database}`);
try {
	const dbUrl = new URL(url);
	dbUrl.pathname = `/${database}`;
	const roundTrips = countRoundTrips();
	const store = await createPgStore({ url: dbUrl.toString(), poolSize: 4 });
	try {
		if (DROP.length) {
			const client = new pg.Client({ connectionString: dbUrl.toString() });
			await client.connect();
			for (const name of DROP) await client.query(`drop index "${name}"`);
			await client.end();
		}
		const started = performance.now();
		await prefill(store, ROWS);
		console.log(`prefilled ${ROWS} messages in ${((performance.now() - started) / 1000).toFixed(1)} s`);
		let before = { trips: 0, pgCpu: 0 };
		const runs = [];
		for (let r = 0; r < RUNS; r++) {
			runs.push(
				await runSteps(store, COUNT, {
					beforeStep: () => {
						before = { trips: roundTrips(), pgCpu: postgresCpuUs() };
					},
					afterStep: (_name, count) => ({
						roundTrips: (roundTrips() - before.trips) / count,
						pgCpuUs: (postgresCpuUs() - before.pgCpu) / count,
					}),
				}),
			);
		}
		report(
			`storage-pg: µs per message step, ${COUNT} messages × ${RUNS} runs on ${ROWS} rows${DROP.length ? `, without ${DROP.join(", ")}` : ""}`,
			runs,
		);
	} finally {
		await store.close();
	}
} finally {
	await admin.query(`drop database if exists ${database} with (force)`);
	await admin.end();
	stopDatabase();
}
