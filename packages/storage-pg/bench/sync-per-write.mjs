// What a Sync per statement costs PostgreSQL and the client, against one Sync per write.
// node-postgres ends every statement with Sync, so each statement of a write is its own
// ReadyForQuery and its own flush of the backend's answers (a send() each). A transaction shaped
// like a message's outcome (BEGIN + an UPDATE; three INSERTs sent together; COMMIT), on one
// pipelined connection, with the three INSERTs sent either as three queries (three Syncs, as
// today) or as one extended-protocol batch under one Sync (`batch`): the same statements, the
// same writes. CPU µs per transaction of the backend (/proc/<pid>/stat, 10 ms ticks) and of this
// process, rounds alternating; median (min–max).
//
//   node packages/storage-pg/bench/sync-per-write.mjs
import { readFileSync } from "node:fs";
import pg from "pg";
import { findPostgresBin, startCluster } from "../../../test/pg/cluster.mjs";

const COUNT = Number(process.env.BENCH_TRANSACTIONS ?? 3000);
const ROUNDS = Number(process.env.BENCH_RUNS ?? 7);

const INSERT = "insert into t (a, b, c) values ($1, $2, $3)";
const UPDATE = "update t set b = b + 1 where id = $1";

/** K executions of one named statement, under a single Sync. */
class Batch extends pg.Query {
	constructor(name, text, rows) {
		super(text);
		this.name = name;
		this.batchRows = rows;
	}
	prepare(connection) {
		if (!this.hasBeenParsed(connection)) {
			connection.parse({ text: this.text, name: this.name });
			connection.submittedNamedStatements[this.name] = this.text;
		}
		for (const values of this.batchRows) {
			connection.bind({ portal: "", statement: this.name, values, valueMapper: pg.utils.prepareValue });
			connection.execute({ portal: "" });
		}
		connection.sync();
	}
}

const ticks = (pid) => {
	const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
	return Number(fields[11]) + Number(fields[12]);
};

const bin = findPostgresBin();
const cluster = await startCluster(bin);
try {
	const client = new pg.Client({ connectionString: cluster.url, pipeline: true });
	await client.connect();
	await client.query("create table t (id bigserial primary key, a text, b int, c text)");
	await client.query("create index on t (a)");
	await client.query("insert into t (a, b, c) values ('x', 0, 'y')");
	const backend = (await client.query("select pg_backend_pid() as pid")).rows[0].pid;
	const stream = client.connection.stream;
	const send = (queries) => {
		stream.cork();
		const all = Promise.all(queries.map((q) => (typeof q === "string" ? client.query(q) : client.query(q))));
		stream.uncork();
		return all;
	};
	let n = 0;
	const row = () => [`k${n++ % 1000}`, n, "some text of a row"];
	const transaction = async (batched) => {
		await send(["begin", { name: "u", text: UPDATE, values: [1] }]);
		if (batched) {
			await new Promise((resolve, reject) =>
				client.query(new Batch("i", INSERT, [row(), row(), row()]), undefined, (e) => (e ? reject(e) : resolve())),
			);
		} else {
			await send([0, 1, 2].map(() => ({ name: "i", text: INSERT, values: row() })));
		}
		await send(["commit"]);
	};
	const round = async (batched) => {
		const t0 = ticks(backend);
		const c0 = process.cpuUsage();
		for (let i = 0; i < COUNT; i++) await transaction(batched);
		const c = process.cpuUsage(c0);
		return { backend: ((ticks(backend) - t0) * 10_000) / COUNT, client: (c.user + c.system) / COUNT };
	};
	await round(false);
	await round(true);
	const results = { "a Sync a statement": [], "one Sync a write (batch)": [] };
	for (let r = 0; r < ROUNDS; r++) {
		results["a Sync a statement"].push(await round(false));
		results["one Sync a write (batch)"].push(await round(true));
	}
	const stat = (values) => {
		const s = [...values].sort((a, b) => a - b);
		return `${s[Math.floor(s.length / 2)].toFixed(1)} (${s[0].toFixed(1)}–${s.at(-1).toFixed(1)})`;
	};
	for (const [name, rounds] of Object.entries(results)) {
		console.log(
			`${name}: backend ${stat(rounds.map((r) => r.backend))} µs, client ${stat(rounds.map((r) => r.client))} µs a transaction; ${ROUNDS} rounds of ${COUNT}`,
		);
	}
	await client.end();
} finally {
	cluster.stop();
}
