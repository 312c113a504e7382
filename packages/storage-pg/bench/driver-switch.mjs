// Would another PostgreSQL client be worth an issue? The sender's statement mix through
// node-postgres as storage-pg drives it against the same statements through `postgres`
// (porsager), prepared statements on both, the client's CPU a message, one cluster, rounds
// interleaved. Not a dependency of the product: `postgres` is loaded from BENCH_POSTGRES_MODULE
// (installed apart, e.g. `npm i postgres` in a scratch directory).
//
// Each round runs BENCH_MESSAGES messages three ways, each on a database of its own:
// - store: this build's store (dist/), the calls of one sent message as the service makes them
//   (the submission's transaction, the move to processing, the outcome's transaction), with
//   storage-pg's wrapping (translate, the transaction wire, decoders) and its writes;
// - store+capture: the same, each statement and the writes it shared recorded;
// - postgres: the recorded statements replayed through `postgres` on a reserved connection, the
//   same groups in the same order (BEGIN … COMMIT as simple queries, each group's statements
//   issued together, so that the client pipelines them), every statement prepared. Its database
//   went through the same statements, so its rows and sequences are the same.
// Replayed parameters are node-postgres' text of each value (its prepareValue), arrays kept as
// arrays; JSON goes as its text (drizzle serialised it already). Results are parsed by each
// client's defaults (node-postgres: described statements' rows as objects, storage-pg's own
// undescribed ones as text; postgres: objects with its type parsers), as each would be used.
// - node-postgres: the same replay through node-postgres alone (a pipelined client, each group
//   corked into one write, named statements): the driver without storage-pg's layers;
// - floor: seven round trips a message (the store's writes) of a trivial prepared statement
//   through node-postgres: what a round trip costs the client whatever it carries.
// Also counted: write system calls a message (/proc/self/io syscw: this process's writes, all
// to PostgreSQL here). CPU µs a message, median (min–max) of rounds.
//
//   BENCH_POSTGRES_MODULE=/scratch/node_modules/postgres/src/index.js node packages/storage-pg/bench/driver-switch.mjs
import { readFileSync } from "node:fs";
import pg from "pg";
import { findPostgresBin, startCluster } from "../../../test/pg/cluster.mjs";
import { outboundMessage } from "../../storage-sqlite/bench/message-steps.mjs";
import { messageEvent as event, sentAttempt } from "./bench-database.mjs";

const COUNT = Number(process.env.BENCH_MESSAGES ?? 1000);
const ROUNDS = Number(process.env.BENCH_RUNS ?? 7);
const { default: postgres } = await import(process.env.BENCH_POSTGRES_MODULE ?? "postgres");
const { createPgStore } = await import(new URL("../dist/index.js", import.meta.url).href);

const bin = findPostgresBin();
if (!bin) throw new Error("PostgreSQL is not installed");
const cluster = await startCluster(bin);

const writes = () => Number(/syscw: (\d+)/.exec(readFileSync("/proc/self/io", "utf8"))[1]);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const range = (values) => `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`;

/** Statements recorded while on: each group is the statements one socket write carried. */
const capture = { on: false, groups: [], current: null };
const query = pg.Client.prototype.query;
const watched = new WeakSet();
pg.Client.prototype.query = function (config, values, callback) {
	if (capture.on) {
		const text = typeof config === "string" ? config : config.text;
		const params = typeof config === "string" ? values : config.values;
		capture.current ??= [];
		capture.current.push({ text, params: (params ?? []).map(replayValue) });
		const stream = this.connection?.stream;
		if (stream && !watched.has(stream)) {
			watched.add(stream);
			for (const method of ["_write", "_writev"]) {
				const original = stream[method];
				stream[method] = function (...args) {
					if (capture.on && capture.current) {
						capture.groups.push(capture.current);
						capture.current = null;
					}
					return original.apply(this, args);
				};
			}
		}
	}
	return query.call(this, config, values, callback);
};
const { prepareValue } = pg.utils;
const replayValue = (value) => (Array.isArray(value) ? value.map(prepareValue) : prepareValue(value));

let n = 0;
/** The storage calls of one sent message, as the service makes them (submit.ts, send.ts, attempts.ts). */
async function message(store) {
	const now = new Date();
	const worker = `w${++n}`;
	const { id: submitted, job } = await store.transaction(async (tx) => {
		const id = await tx.messages.createNew(newMessage(now));
		const [, job] = await Promise.all([
			tx.usage.incrementMany({
				accountId: "acc_bench",
				period: "2026-11",
				by: { live_messages: 1, live_bytes: 10_240 },
			}),
			tx.jobs.enqueueClaimed({ kind: "send", payload: { messageId: id }, runAt: now }, now, {
				workerId: worker,
				lockedUntil: new Date(now.getTime() + 60_000),
			}),
			tx.events.appendNewWithFanOut(event("message.queued", id), { kind: "webhook.fan-out", runAt: now }),
		]);
		return { id, job };
	});
	await store.messages.transition(submitted, ["queued"], { status: "processing", attempts: 1, updatedAt: now });
	await store.transaction(async (tx) => {
		const moved = await tx.messages.transition(submitted, ["processing"], {
			status: "delivered",
			deliveredAt: now,
			mdnStatus: "received",
			sentAt: now,
			transmissionTimeMs: 12,
			updatedAt: now,
		});
		if (!moved) throw new Error("the message did not move");
		await Promise.all([
			tx.jobs.complete(job.id, worker),
			tx.events.appendNew(event("message.sent", submitted)),
			tx.events.appendNew(event("message.delivered", submitted)),
			tx.messageAttempts.create(sentAttempt(submitted, now)),
		]);
	});
}

/** A message as submit.ts writes it (message-steps.mjs), its id left to the store. */
function newMessage(now) {
	const { id: _id, ...fields } = outboundMessage("", now, n);
	return { ...fields, messageId: `<${n}-${now.getTime()}@bench.example>` };
}

/** The recorded groups replayed on a reserved `postgres` connection, group after group. */
async function replay(connection, groups) {
	for (const group of groups) {
		await Promise.all(
			group.map(({ text, params }) =>
				params.length === 0 && /^(begin|commit|rollback)$/.test(text)
					? connection.unsafe(text)
					: connection.unsafe(text, params, { prepare: true }),
			),
		);
	}
}

const statementNames = new Map();
/**
 * The recorded groups replayed through node-postgres alone: one pipelined client, each group's
 * statements corked into one write, named prepared statements described as node-postgres does
 * by default (storage-pg reads its whole rows without Describe): the driver without the adapter.
 */
async function replayRaw(client, groups) {
	const stream = client.connection.stream;
	for (const group of groups) {
		stream.cork();
		const answers = group.map(({ text, params }) => {
			if (params.length === 0 && /^(begin|commit|rollback)$/.test(text)) return client.query(text);
			let name = statementNames.get(text);
			if (name === undefined) {
				name = `bench_${statementNames.size}`;
				statementNames.set(text, name);
			}
			return client.query({ name, text, values: params });
		});
		process.nextTick(() => stream.uncork());
		await Promise.all(answers);
	}
}

async function database(name) {
	const admin = new pg.Client({ connectionString: cluster.url });
	await admin.connect();
	await admin.query(`create database ${name}`);
	await admin.end();
	const url = new URL(cluster.url);
	url.pathname = `/${name}`;
	return url.toString();
}

try {
	const urls = { store: await database("bench_store"), captured: await database("bench_captured") };
	const replayUrl = await database("bench_postgres");
	const rawUrl = await database("bench_raw");
	const stores = {
		store: await createPgStore({ url: urls.store, checkTransactions: false }),
		captured: await createPgStore({ url: urls.captured, checkTransactions: false }),
	};
	// The replay's database migrated by the same build, then left to the replayed statements.
	await (await createPgStore({ url: replayUrl, checkTransactions: false })).close();
	await (await createPgStore({ url: rawUrl, checkTransactions: false })).close();
	const rawClient = new pg.Client({ connectionString: rawUrl, pipeline: true });
	await rawClient.connect();
	const sql = postgres(replayUrl, {
		max: 1,
		onnotice: () => {},
		// JSON parameters arrive as their text (drizzle's serialisation): sent as they are.
		types: {
			jsonText: { to: 114, from: [114, 3802], serialize: (x) => (typeof x === "string" ? x : JSON.stringify(x)) },
		},
	});
	const reserved = await sql.reserve();
	// The floor: as many round trips a message as the store's writes, each one trivial prepared
	// statement through node-postgres: what a round trip costs the client whatever it carries.
	const floorClient = new pg.Client({ connectionString: replayUrl, pipeline: true });
	await floorClient.connect();
	const trivial = { name: "bench_trivial", text: "select $1::int as n", values: [1] };
	const floor = async () => {
		for (let i = 0; i < COUNT * 7; i++) await floorClient.query(trivial);
	};
	const measure = async (run) => {
		const w = writes();
		const start = process.cpuUsage();
		await run();
		const { user, system } = process.cpuUsage(start);
		return { cpu: (user + system) / COUNT, writes: (writes() - w) / COUNT };
	};
	const results = { store: [], captured: [], postgres: [], "node-postgres": [], floor: [] };
	for (let r = 0; r <= ROUNDS; r++) {
		const store = await measure(async () => {
			for (let i = 0; i < COUNT; i++) await message(stores.store);
		});
		capture.on = true;
		const captured = await measure(async () => {
			for (let i = 0; i < COUNT; i++) await message(stores.captured);
		});
		capture.on = false;
		if (capture.current) capture.groups.push(capture.current);
		const groups = capture.groups;
		capture.groups = [];
		capture.current = null;
		const replayed = await measure(() => replay(reserved, groups));
		const rawReplayed = await measure(() => replayRaw(rawClient, groups));
		const trivialTrips = await measure(floor);
		// Round 0 warms up every path (and prepares every statement on every connection).
		if (r === 0) continue;
		results.store.push(store);
		results.captured.push(captured);
		results.postgres.push(replayed);
		results["node-postgres"].push(rawReplayed);
		results.floor.push(trivialTrips);
	}
	for (const [name, values] of Object.entries(results)) {
		const cpu = values.map((v) => v.cpu);
		console.log(
			`${name.padEnd(9)} ${median(cpu).toFixed(1)} µs a message (${range(cpu)}), ${median(values.map((v) => v.writes)).toFixed(2)} writes a message; by round: ${cpu.map((v) => v.toFixed(0)).join(" ")}`,
		);
	}
	for (const other of ["postgres", "node-postgres"])
		console.log(
			`${other} ÷ store, by round: ${results.store.map((s, i) => (results[other][i].cpu / s.cpu).toFixed(2)).join(" ")}`,
		);
	// The replay did what the store did: the same rows in both databases.
	const tally =
		"select (select count(*) from messages where status = 'delivered') as delivered, (select count(*) from events) as events, (select count(*) from jobs) as jobs, (select count(*) from message_attempts) as attempts";
	const [replayedRows] = await reserved.unsafe(tally);
	const capturedClient = new pg.Client({ connectionString: urls.captured });
	await capturedClient.connect();
	const { rows } = await capturedClient.query(tally);
	await capturedClient.end();
	console.log(`rows, captured database: ${JSON.stringify(rows[0])}; replayed: ${JSON.stringify(replayedRows)}`);
	reserved.release();
	await floorClient.end();
	await rawClient.end();
	await sql.end();
	await Promise.all(Object.values(stores).map((store) => store.close()));
} finally {
	cluster.stop();
}
