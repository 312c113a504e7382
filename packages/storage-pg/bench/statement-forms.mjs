// Two forms of one hot statement, measured inside PostgreSQL: the backend's CPU (from
// /proc/<pid>/schedstat, ns) and the WAL (from the LSN) of each form, executed alone in
// autocommit on one connection each, A and B on databases of their own (this build's
// migrations, then the form's DDL), forms alternating by round; the first round warms the plans
// up and is not counted. Prints µs and WAL bytes a statement, median (min–max), and B ÷ A by round.
//
//   jobs-key: a keyless job's insert as before stop 35 (A: `on conflict ("key") do nothing`, the
//     key unique over every job) and now (B: no `on conflict`, the key's index partial).
//   job-on-conflict: the `on conflict` clause alone (both with the key unique over every job).
//   events-seq: an event's insert with `seq` the primary key and the id unique (A, the schema)
//     and with the id the primary key and `seq` without an index (B; measured, not taken).
//   event-fan-out: an event's insert for an account without webhook endpoints with its fan-out
//     CTE (A, events.appendNewWithFanOut) and alone (B, events.appendNew).
//   event-check, event-cte: the insert alone (A) against the insert in a CTE with the endpoints'
//     check as a column and no jobs node (B), and in a bare CTE (B): what the fan-out's parts cost.
//
//   BENCH_FORM=jobs-key node packages/storage-pg/bench/statement-forms.mjs
import { readFileSync } from "node:fs";
import pg from "pg";
import { findPostgresBin, startCluster } from "../../../test/pg/cluster.mjs";
import { createPgStore } from "../dist/index.js";

const COUNT = Number(process.env.BENCH_STATEMENTS ?? 4000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const FORM = process.env.BENCH_FORM ?? "jobs-key";

const JOB_COLUMNS = `"id", "kind", "payload", "key", "priority", "run_at", "attempts", "locked_by", "locked_until", "last_error", "created_at"`;
const JOB_INSERT = `insert into "jobs" ("kind", "payload", "key", "priority", "run_at", "attempts", "locked_by", "locked_until", "last_error", "created_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;
const EVENT_INSERT = `insert into "events" ("id", "account_id", "tenant_id", "kind", "subject_id", "data", "environment", "created_at") values ((select 'evt_' || case when v < 1000000 then lpad(v::text, 6, '0') else v::text end from nextval($8::regclass) as v), $1, $2, $3, $4, $5, $6, $7)`;
const FAN_OUT = `with "event" as (${EVENT_INSERT} returning "id", "account_id", "created_at"),
	"fan_out" as (insert into "jobs" ("kind", "payload", "priority", "run_at", "attempts", "created_at")
		select $9::text, json_build_object('eventId', "event"."id"), 0, $10::timestamptz, 0, "event"."created_at"
		from "event"
		where exists (select 1 from "webhook_endpoints" where "account_id" = "event"."account_id" and "active")
		returning 1)
	select "id", exists (select 1 from "fan_out") as "fan_out" from "event"`;
// The jobs' key unique over every job, as before migration 0009.
const JOBS_KEY_UNIQUE =
	'drop index "jobs_key_unique"; alter table "jobs" add constraint "jobs_key_unique" unique ("key")';
// The events' id as their primary key, `seq` without an index (not taken).
const EVENTS_ID_KEY =
	'alter table "events" drop constraint "events_pkey"; alter table "events" drop constraint "events_id_unique"; alter table "events" add primary key ("id")';

const keylessJob = (i) => {
	const at = new Date(Date.now() + 60_000).toISOString();
	return ["message.send", JSON.stringify({ messageId: `msg_${i}` }), null, 0, at, 0, null, null, null, at];
};
const event = (i) => {
	const at = new Date().toISOString();
	const data = JSON.stringify({ id: `msg_${i}` });
	return ["acc_bench", "tnt_bench", "message.queued", `msg_${i}`, data, "live", at, '"ids_evt_"'];
};
const eventForm = (b) => ({ a: `${EVENT_INSERT} returning "id"`, b, values: event });

const FORMS = {
	"jobs-key": {
		a: `${JOB_INSERT} on conflict ("key") do nothing returning ${JOB_COLUMNS}`,
		b: `${JOB_INSERT} returning ${JOB_COLUMNS}`,
		ddlA: JOBS_KEY_UNIQUE,
		empty: 'delete from "jobs"',
		values: keylessJob,
	},
	"job-on-conflict": {
		a: `${JOB_INSERT} on conflict ("key") do nothing returning ${JOB_COLUMNS}`,
		b: `${JOB_INSERT} returning ${JOB_COLUMNS}`,
		ddlA: JOBS_KEY_UNIQUE,
		ddlB: JOBS_KEY_UNIQUE,
		empty: 'delete from "jobs"',
		values: keylessJob,
	},
	"events-seq": { ...eventForm(`${EVENT_INSERT} returning "id"`), ddlB: EVENTS_ID_KEY },
	"event-fan-out": {
		a: FAN_OUT,
		b: `${EVENT_INSERT} returning "id"`,
		values: (i, side) => (side === "a" ? [...event(i), "webhook.fan_out", new Date().toISOString()] : event(i)),
	},
	"event-check": eventForm(
		`with "event" as (${EVENT_INSERT} returning "id", "account_id") select "id", exists (select 1 from "webhook_endpoints" where "account_id" = "event"."account_id" and "active") from "event"`,
	),
	"event-cte": eventForm(`with "event" as (${EVENT_INSERT} returning "id") select "id" from "event"`),
};
const form = FORMS[FORM];
if (!form) throw new Error(`BENCH_FORM: one of ${Object.keys(FORMS).join(", ")}`);

const onCpuNs = (pid) => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const figure = (values, digits = 1) =>
	`${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

const cluster = await startCluster(findPostgresBin());
const urlOf = (side) => {
	const url = new URL(cluster.url);
	url.pathname = `/forms_${side}`;
	return url.toString();
};
const clients = {};
try {
	const admin = new pg.Client({ connectionString: cluster.url });
	await admin.connect();
	for (const side of ["a", "b"]) {
		// Each form on a database of its own, with the schema as the migrations leave it (and B's DDL).
		await admin.query(`create database forms_${side}`);
		const store = await createPgStore({ url: urlOf(side), poolSize: 1 });
		await store.ids.next("evt_");
		await store.close();
		const client = new pg.Client({ connectionString: urlOf(side) });
		await client.connect();
		const ddl = side === "a" ? form.ddlA : form.ddlB;
		if (ddl) await client.query(ddl);
		client.backend = (await client.query("select pg_backend_pid() as pid")).rows[0].pid;
		clients[side] = client;
	}
	const lsn = async () => {
		const { rows } = await admin.query("select pg_current_wal_lsn()::text as lsn");
		const [high, low] = rows[0].lsn.split("/").map((part) => Number.parseInt(part, 16));
		return high * 2 ** 32 + low;
	};
	const cpu = { a: [], b: [] };
	const wal = { a: [], b: [] };
	let n = 0;
	for (let round = 0; round < ROUNDS + 1; round++) {
		for (const side of round % 2 ? ["b", "a"] : ["a", "b"]) {
			const wal0 = await lsn();
			const client = clients[side];
			const start = onCpuNs(client.backend);
			for (let i = 0; i < COUNT; i++, n++)
				await client.query({ name: `bench_${side}`, text: form[side], values: form.values(n, side), rowMode: "array" });
			const used = (onCpuNs(client.backend) - start) / COUNT / 1000;
			const written = ((await lsn()) - wal0) / COUNT;
			if (round > 0) {
				cpu[side].push(used);
				wal[side].push(written);
			}
		}
		// The jobs a round left: emptied, so that both forms insert into a table of one size.
		if (form.empty) for (const client of Object.values(clients)) await client.query(form.empty);
	}
	await admin.end();
	console.log(
		`${FORM}: ${ROUNDS} rounds of ${COUNT} statements a form, alternating; backend µs and WAL bytes a statement`,
	);
	for (const side of ["a", "b"])
		console.log(`  ${side.toUpperCase()}: CPU ${figure(cpu[side])} µs; WAL ${figure(wal[side], 0)} bytes`);
	console.log(`  B ÷ A by round: ${cpu.b.map((b, i) => (b / cpu.a[i]).toFixed(2)).join(" ")}`);
} finally {
	for (const client of Object.values(clients)) await client.end();
	cluster.stop();
}
