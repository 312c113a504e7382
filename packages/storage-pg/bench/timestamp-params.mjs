// What an instant parameter costs PostgreSQL as ISO text (`$1::timestamptz`: timestamptz_in,
// node-postgres sends every parameter as text, drizzle a Date as its toISOString) against the
// same instant as epoch milliseconds (`to_timestamp($1::float8 / 1000)`: float8in and a
// multiplication). Stop 32 profiled timestamptz_in at 2.4 % of the backends' CPU. One connection,
// named statements of three parameters, forms rotating by round, and a form of three text
// parameters as the floor; backend CPU from /proc/<pid>/schedstat (ns). Prints µs per instant
// beyond the floor, median (min–max), and checks first that both forms give the same
// timestamptz(3) for random instants (float8 carries milliseconds exactly at this magnitude).
//
//   node packages/storage-pg/bench/timestamp-params.mjs
import { readFileSync } from "node:fs";
import pg from "pg";
import { findPostgresBin, startCluster } from "../../../test/pg/cluster.mjs";

const COUNT = Number(process.env.BENCH_STATEMENTS ?? 5000);
const ROUNDS = Number(process.env.BENCH_RUNS ?? 7);

const FORMS = {
	floor: { text: "select $1::text, $2::text, $3::text", value: (ms) => new Date(ms).toISOString() },
	iso: {
		text: "select $1::timestamptz(3), $2::timestamptz(3), $3::timestamptz(3)",
		value: (ms) => new Date(ms).toISOString(),
	},
	epoch: {
		text: "select to_timestamp($1::float8 / 1000)::timestamptz(3), to_timestamp($2::float8 / 1000)::timestamptz(3), to_timestamp($3::float8 / 1000)::timestamptz(3)",
		value: (ms) => String(ms),
	},
};

const onCpuNs = (pid) => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const cluster = await startCluster(findPostgresBin());
try {
	const client = new pg.Client({ connectionString: cluster.url });
	await client.connect();
	const backend = (await client.query("select pg_backend_pid() as pid")).rows[0].pid;
	// Same instant both ways, to the millisecond, over a century of random instants.
	for (let i = 0; i < 2000; i++) {
		const ms = Date.UTC(1990, 0, 1) + Math.floor(Math.random() * 100 * 365 * 86_400_000);
		const { rows } = await client.query({
			text: "select $1::timestamptz(3) = to_timestamp($2::float8 / 1000)::timestamptz(3) as same",
			values: [new Date(ms).toISOString(), String(ms)],
		});
		if (!rows[0].same) throw new Error(`${ms}: the forms differ`);
	}
	const perRound = Object.fromEntries(Object.keys(FORMS).map((name) => [name, []]));
	const base = Date.now();
	for (let round = 0; round < ROUNDS + 1; round++) {
		const names = Object.keys(FORMS);
		// Rotated, so that no form always runs first after another's caches.
		for (const name of [...names.slice(round % names.length), ...names.slice(0, round % names.length)]) {
			const { text, value } = FORMS[name];
			const start = onCpuNs(backend);
			for (let i = 0; i < COUNT; i++) {
				const ms = base + i * 7919;
				await client.query({ name: `bench_${name}`, text, values: [value(ms), value(ms + 1), value(ms + 2)] });
			}
			// The first round warms the plans up and is not counted.
			if (round > 0) perRound[name].push((onCpuNs(backend) - start) / COUNT / 1000);
		}
	}
	await client.end();
	const floor = perRound.floor;
	console.log(`backend CPU, ${ROUNDS} rounds of ${COUNT} statements of 3 instants; µs an instant beyond the floor:`);
	for (const name of ["iso", "epoch"]) {
		const beyond = perRound[name].map((us, i) => (us - floor[i]) / 3);
		console.log(
			`  ${name.padEnd(6)} ${median(beyond).toFixed(2)} (${Math.min(...beyond).toFixed(2)}–${Math.max(...beyond).toFixed(2)})`,
		);
	}
	console.log(`  floor  ${median(floor).toFixed(1)} µs a statement`);
} finally {
	cluster.stop();
}
