// What a delivered message's storage work costs PostgreSQL and its client, in four forms of
// the same writes (issue #20, stop 36), each on one connection of its own, warm, rounds
// alternating (and their order too):
//
//   store      today: the adapter's calls as the sender makes them (submit.ts: the submission's
//              transaction, its last calls given to commitWith; send.ts: the move to `processing`
//              alone; the outcome's transaction, its last calls given to commitWith), through
//              storage-pg and node-postgres;
//   pipelined  the floor of these statements: the same statements (recorded from `store`: the
//              same text and values, the ids of the message and its job apart), raw on a
//              pipelined client, prepared, without Describe, each transaction in the writes the
//              server needs (BEGIN with the first statement, awaited for its answer; then the
//              rest with COMMIT);
//   function   one statement a step: each transaction's statements in one PL/pgSQL function (its
//              plans cached by the backend), one call a transaction; the move to `processing`
//              as it is (one statement already);
//   cte        one statement a step: each transaction's statements as one data-modifying CTE
//              (its parts run in no order PostgreSQL promises: the same CPU, but a port built
//              so would write a step's events in one ordered insert to keep their order).
//
// In `function` and `cte` the later statements read the message's id from the first statement's
// row (in SQL: `replace(<value>, <id>, <the row's id>)`, the id the service would have awaited),
// and the outcome's writes happen only when the move found the message (`where exists` / `if
// not found`), as the service's `if (!moved) return null` does.
//
// Per message, median (min–max) of rounds: the form's backend CPU (/proc/<pid>/schedstat, ns:
// /proc/<pid>/stat's 10 ms ticks cannot resolve a statement), the cluster's (every process of
// it: the WAL writer, the checkpointer, autovacuum; 10 ms ticks over a round), this process's CPU (the adapter
// and node-postgres for `store`; for the others the driver's least: no Describe, no adapter),
// wall; and each form ÷ `store` round by round. Left out: the claim (a third of the bench's
// messages are not handed off) and the usage row's lock waits (one connection).
//
//   npm run build && BENCH_ROUNDS=9 BENCH_MESSAGES=500 node packages/storage-pg/bench/one-statement-a-step.mjs
import { readFileSync } from "node:fs";
import pg from "pg";
import { outboundMessage } from "../../storage-sqlite/bench/message-steps.mjs";
import { benchDatabase, messageEvent, sentAttempt } from "./bench-database.mjs";

const { createPgStore } = await import(new URL("../dist/index.js", import.meta.url).href);

const COUNT = Number(process.env.BENCH_MESSAGES ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
/** Messages each form runs before the rounds: V8's JIT and the backend's caches warm. */
const WARM = Number(process.env.BENCH_WARM ?? 3000);
const FORMS = (process.env.BENCH_FORMS ?? "store,pipelined,function,cte").split(",");

const WORKER = "w1";

// --- today: the port's calls --------------------------------------------------------------------

/** One delivered message through the port, as the sender makes it: its id and its job's. */
async function storeMessage(store) {
	const at = new Date();
	let id;
	let job;
	await store.transaction(async (tx) => {
		const { id: _, ...message } = outboundMessage("", at, 1);
		id = await tx.messages.createNew(message);
		const claimed = tx.jobs.enqueueClaimed(
			{ kind: "message.send", key: `send:${id}`, payload: { messageId: id }, priority: 0, runAt: at },
			at,
			{ workerId: WORKER, lockedUntil: new Date(at.getTime() + 60_000) },
		);
		claimed.then((written) => {
			job = written;
		});
		await tx.commitWith([
			tx.usage.incrementMany({
				accountId: "acc_bench",
				period: "2026-11",
				by: { live_messages: 1, live_bytes: 10_240 },
			}),
			tx.events.appendNewWithFanOut(messageEvent("message.queued", id), { kind: "webhook.fan_out", runAt: at }),
			claimed,
		]);
	});
	// send.ts: the move to `processing`, alone (no event), with the attempt's MIC.
	await store.messages.transition(id, ["queued", "processing"], {
		status: "processing",
		attempts: 1,
		lastAttemptAt: at,
		mic: "abc, sha-256",
		details: { payload_sha256: "0".repeat(64), attempt_mics: ["abc, sha-256"] },
		updatedAt: at,
	});
	const done = new Date();
	await store.transaction(async (tx) => {
		const delivered = await tx.messages.transition(id, ["processing"], {
			status: "delivered",
			mdnStatus: "received",
			sentAt: done,
			deliveredAt: done,
			transmissionTimeMs: 12,
			updatedAt: done,
		});
		if (!delivered) throw new Error(`${id} did not move to delivered`);
		await tx.commitWith([
			tx.messageAttempts.create(sentAttempt(id, at)),
			tx.jobs.complete(job.id, WORKER),
			tx.events.appendNewWithFanOut(messageEvent("message.sent", id), { kind: "webhook.fan_out", runAt: done }),
			tx.events.appendNewWithFanOut(messageEvent("message.delivered", id), { kind: "webhook.fan_out", runAt: done }),
		]);
	});
	return { id, jobId: job.id };
}

// --- The recorded statements --------------------------------------------------------------------

let recording = null;
const clientQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, ...rest) {
	if (recording && config !== undefined)
		recording.push(typeof config === "string" ? { text: config } : { text: config.text, values: config.values });
	return clientQuery.call(this, config, ...rest);
};

/** `statements` in the order of `fragments`: each a fragment of one's text, or one of its values. */
function ordered(statements, fragments) {
	const left = [...statements];
	return fragments.map((fragment) => {
		const at = left.findIndex((s) => s.text.includes(fragment) || s.values?.includes(fragment));
		if (at < 0) throw new Error(`no statement with ${fragment}`);
		return left.splice(at, 1)[0];
	});
}

/**
 * One message's statements (BEGIN and COMMIT apart) from `store`: the submission (its first
 * statement, then the rest), the move to `processing`, the outcome (the same), with the ids
 * they were recorded with.
 */
async function recordMessage(store) {
	recording = [];
	const ids = await storeMessage(store);
	const statements = recording.filter((s) => !/^(begin|commit)$/i.test(s.text));
	recording = null;
	if (statements.length !== 10) throw new Error(`expected 10 statements, recorded ${statements.length}`);
	const job = 'insert into "jobs"';
	return {
		ids,
		submission: {
			first: statements[0],
			rest: ordered(statements.slice(1, 4), ['"usage_counters"', '"events"', job]),
		},
		processing: statements[4],
		outcome: {
			first: statements[5],
			rest: ordered(statements.slice(6), [
				'"message_attempts"',
				'delete from "jobs"',
				"message.sent",
				"message.delivered",
			]),
		},
	};
}

/**
 * `statement` for another message: which of its values hold the recorded message's id (or are
 * its job's id), so that each message's values are made by replacing just those.
 */
function template(statement, recorded) {
	const values = statement.values ?? [];
	const holdsId = values.map((v) => typeof v === "string" && v.includes(recorded.id));
	// The job's id is a number in the statement's values, whatever type the port gave it.
	const isJobId = values.map((v) => typeof v === "number" && String(v) === String(recorded.jobId));
	return {
		text: statement.text,
		holdsId,
		isJobId,
		values: (ids) =>
			values.map((v, i) => (holdsId[i] ? v.replaceAll(recorded.id, ids.id) : isJobId[i] ? ids.jobId : v)),
	};
}

// --- The raw client: prepared, pipelined, without Describe --------------------------------------

/** As storage-pg's undescribed-query.ts: Parse once a connection, then Bind, Execute, Sync; rows as text. */
class RawQuery extends pg.Query {
	prepare(connection) {
		if (!this.hasBeenParsed(connection)) {
			connection.parse({ text: this.text, name: this.name });
			connection.submittedNamedStatements[this.name] = this.text;
		}
		connection.bind({
			portal: this.portal,
			statement: this.name,
			values: this.values,
			valueMapper: pg.utils.prepareValue,
		});
		connection.execute({ portal: this.portal });
		connection.sync();
	}
	handleDataRow(message) {
		this._result.rows.push(message.fields);
	}
}

const statementNames = new Map();
/** Runs `text` as a named prepared statement on `client`: its rows, each its columns' text. */
function raw(client, text, values) {
	if (!statementNames.has(text)) statementNames.set(text, `bench_${statementNames.size}`);
	const name = statementNames.get(text);
	const query = new RawQuery(text, values);
	query.name = name;
	return new Promise((resolve, reject) =>
		client.query(query, undefined, (error, result) => (error ? reject(error) : resolve(result.rows))),
	);
}

async function rawClient() {
	const client = new pg.Client({ connectionString: url, pipeline: true });
	await client.connect();
	return client;
}

/** The writes of `store`, raw: each transaction's BEGIN with its first statement, then the rest with COMMIT. */
async function pipelinedForm(plan) {
	const client = await rawClient();
	const submission = {
		first: template(plan.submission.first, plan.ids),
		rest: plan.submission.rest.map((s) => template(s, plan.ids)),
	};
	const processing = template(plan.processing, plan.ids);
	const outcome = {
		first: template(plan.outcome.first, plan.ids),
		rest: plan.outcome.rest.map((s) => template(s, plan.ids)),
	};
	const transaction = async ({ first, rest }, ids, firstIds = ids) => {
		const begun = client.query("begin");
		const [row] = await raw(client, first.text, first.values(firstIds));
		await begun;
		const known = { ...ids, id: ids.id ?? row[0] };
		const answers = Promise.all(rest.map((s) => raw(client, s.text, s.values(known))));
		const committed = client.query("commit");
		const rows = await answers;
		await committed;
		return { known, rows };
	};
	return {
		connection: client,
		async message() {
			const { known, rows } = await transaction(submission, { id: null, jobId: null }, plan.ids);
			const ids = { id: known.id, jobId: Number(rows[2][0][0]) };
			await raw(client, processing.text, processing.values(ids));
			await transaction(outcome, ids);
		},
	};
}

// --- One statement a step -------------------------------------------------------------------------

/** `text` with each `$n` shifted by `offset`. */
const shifted = (text, offset) => text.replace(/\$(\d+)/g, (_, n) => `$${Number(n) + offset}`);

/** The parameters' types PostgreSQL infers for `text`. */
async function parameterTypes(client, text) {
	await client.query(`prepare bench_probe as ${text}`);
	const { rows } = await client.query(
		"select parameter_types::text[] as types from pg_prepared_statements where name = 'bench_probe'",
	);
	await client.query("deallocate bench_probe");
	return rows[0].types;
}

/** The index of the parenthesis closing the one at `open`. */
function closing(text, open) {
	let depth = 0;
	for (let i = open; i < text.length; i++) {
		if (text[i] === "(") depth++;
		else if (text[i] === ")" && --depth === 0) return i;
	}
	throw new Error("unbalanced parentheses");
}

/** An `insert … values (…) …` as `insert … select … where <condition> …`. */
function valuesWhere(text, condition) {
	const at = text.indexOf(" values (");
	if (at < 0) return text;
	const end = closing(text, at + " values ".length);
	return `${text.slice(0, at)} select ${text.slice(at + " values (".length, end)} where ${condition}${text.slice(end + 1)}`;
}

/**
 * A transaction's statements as the parts of one: each statement's `$n` shifted after the
 * statements before it, and a value holding the message's id made from `idSql` (the first
 * statement's row) instead. Answers the parts' texts and the values' order.
 */
async function fusedParts(client, transaction, recorded, idSql) {
	const statements = [transaction.first, ...transaction.rest].map((s) => template(s, recorded));
	let offset = 0;
	const parts = [];
	for (const [i, s] of statements.entries()) {
		const types = await parameterTypes(client, s.text);
		// Each parameter cast to its type: in `insert … select` (below) nothing else would type it.
		let text = shifted(s.text, offset).replace(/\$(\d+)(?![\d:])/g, (all, n) => `${all}::${types[n - 1 - offset]}`);
		if (i > 0)
			for (const [k, holds] of s.holdsId.entries())
				if (holds)
					text = text.replace(
						new RegExp(`\\$${k + 1 + offset}(?!\\d)(::\\w+)?`),
						`replace($${k + 1 + offset}::text, '${recorded.id}', ${idSql})::${types[k]}`,
					);
		parts.push({ text, template: s, count: types.length });
		offset += types.length;
	}
	return parts;
}

/** The values of fused `parts` for a message: each statement's recorded values (ids as recorded, the job's apart). */
const fusedValues = (parts, ids) => parts.flatMap((part) => part.template.values(ids));

/** Each transaction as one PL/pgSQL function: its statements in order, the rest after the first's row. */
async function functionForm(plan) {
	const client = await rawClient();
	const make = async (name, transaction, firstIsMove) => {
		const parts = await fusedParts(client, transaction, plan.ids, "p_id");
		const types = [];
		for (const part of parts) types.push(...(await parameterTypes(client, part.template.text)));
		const job = parts.findIndex((part) => part.text.startsWith('insert into "jobs"'));
		const body = parts
			.map((part, i) => {
				// Rows the function reads (the first's id, the job's) go into a record; the others'
				// RETURNING goes (PL/pgSQL refuses rows without a destination, and more than one into it).
				const keeps = i === 0 || (i === job && !firstIsMove) || /^with\b/.test(part.text);
				const text = keeps ? `${part.text} into r${i}` : part.text.replace(/\s+returning\s+[^()]*$/, "");
				return `${text};${i === 0 ? `\n\tif not found then return null; end if;\n\tp_id := r0."id";` : ""}`;
			})
			.join("\n\t");
		await client.query(`create or replace function ${name}(${types.map((type, i) => `a${i + 1} ${type}`).join(", ")})
returns text[] language plpgsql as $body$
declare ${parts.map((_, i) => `r${i} record;`).join(" ")} p_id text;
begin
	${body}
	return array[p_id${job > 0 && !firstIsMove ? `, r${job}."id"::text` : ""}];
end $body$`);
		return { parts, call: `select ${name}(${types.map((_, i) => `$${i + 1}`).join(", ")})` };
	};
	const submission = await make("bench_submission", plan.submission, false);
	const processing = template(plan.processing, plan.ids);
	const outcome = await make("bench_outcome", plan.outcome, true);
	return {
		connection: client,
		async message() {
			const [row] = await raw(client, submission.call, fusedValues(submission.parts, plan.ids));
			const [id, jobId] = parseArray(row[0]);
			const ids = { id, jobId: Number(jobId) };
			await raw(client, processing.text, processing.values(ids));
			const [moved] = await raw(client, outcome.call, fusedValues(outcome.parts, ids));
			if (moved[0] === null) throw new Error(`${id} did not move`);
		},
	};
}

/** A one-dimensional text[] of ids (no quoting needed) from its text form. */
const parseArray = (text) => text.slice(1, -1).split(",");

/** Renames a statement's own CTEs (`"m"`, `"event"` …) with `suffix`, where `names` says which. */
const renamed = (text, names, suffix) =>
	names.reduce((t, name) => t.replaceAll(`"${name}"`, `"${name}${suffix}"`), text);

/** A statement as CTEs of a larger one: `with a as (…), b as (…) select …` → `a as (…), b as (…), <as> as (select …)`. */
function asCtes(text, as) {
	if (!/^with /.test(text)) return `"${as}" as (${text})`;
	// The body after the statement's own CTEs: the text after the last of its `"name" as (…)`.
	let at = "with ".length;
	const ctes = [];
	for (;;) {
		const open = text.indexOf("(", at);
		const end = closing(text, open);
		ctes.push(text.slice(at, end + 1).replace(/^[\s,]+/, ""));
		const after = text.slice(end + 1);
		const next = after.match(/^\s*,\s*"/);
		if (!next) {
			ctes.push(`"${as}" as (${after.trim()})`);
			return ctes.join(",\n");
		}
		at = end + 1 + next[0].length - 1;
	}
}

/** Each transaction as one statement: its statements as data-modifying CTEs of one. */
async function cteForm(plan) {
	const client = await rawClient();
	const make = async (transaction, firstIsMove) => {
		// The first statement's CTE "m" keeps its name: the rest read the message's id from it.
		const parts = await fusedParts(client, transaction, plan.ids, '(select "id" from "m")');
		const ctes = parts.map((part, i) => {
			let text = i === 0 ? part.text : renamed(part.text, ["event", "fan_out"], `_${i}`);
			// The outcome's writes only when the move found the message.
			if (i > 0 && firstIsMove) {
				text = valuesWhere(text, 'exists (select 1 from "m")');
				if (text.startsWith("delete ")) text = text.replace(" returning", ' and exists (select 1 from "m") returning');
			}
			return asCtes(text, `step_${i}`);
		});
		const job = parts.findIndex((part) => part.text.startsWith('insert into "jobs"'));
		const answer = firstIsMove
			? `select (select "id" from "m")`
			: `select (select "id" from "step_0"), (select "id" from "step_${job}")`;
		return { parts, text: `with ${ctes.join(",\n")}\n${answer}` };
	};
	const submission = await make(plan.submission, false);
	const processing = template(plan.processing, plan.ids);
	const outcome = await make(plan.outcome, true);
	return {
		connection: client,
		async message() {
			const [row] = await raw(client, submission.text, fusedValues(submission.parts, plan.ids));
			const ids = { id: row[0], jobId: Number(row[1]) };
			await raw(client, processing.text, processing.values(ids));
			const [moved] = await raw(client, outcome.text, fusedValues(outcome.parts, ids));
			if (moved[0] === null) throw new Error(`${ids.id} did not move`);
		},
	};
}

// --- Measurement ---------------------------------------------------------------------------------

const cpuNs = (pid) => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const figure = (values) =>
	`${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;

const { url, postgresCpuUs, stop: stopDatabase } = await benchDatabase();
const forms = [];
let store = null;
let keepOpen = null;
try {
	store = await createPgStore({ url, poolSize: 1, checkTransactions: false });
	for (let i = 0; i < 50; i++) await storeMessage(store);
	const plan = await recordMessage(store);
	const admin = new pg.Client({ connectionString: url });
	await admin.connect();
	const { rows } = await admin.query("select pid from pg_stat_activity where application_name = 'as2kit'");
	await admin.end();
	const makers = { pipelined: pipelinedForm, function: functionForm, cte: cteForm };
	for (const name of FORMS) {
		if (name === "store") {
			forms.push({ name, pid: rows[0].pid, message: () => storeMessage(store) });
			continue;
		}
		const form = await makers[name](plan);
		const [[pid]] = await raw(form.connection, "select pg_backend_pid()", []);
		forms.push({ name, pid: Number(pid), ...form });
	}
	// pg-pool closes a connection idle for 10 s: the store's stays open while the others run.
	keepOpen = setInterval(() => store.messages.getById("none").catch(() => {}), 2000);
	for (const form of forms) for (let i = 0; i < WARM; i++) await form.message();
	for (const form of forms) Object.assign(form, { backend: [], cluster: [], client: [], wall: [] });
	for (let round = 0; round < ROUNDS; round++) {
		for (const form of round % 2 ? [...forms].reverse() : forms) {
			const backend = cpuNs(form.pid);
			const cluster = postgresCpuUs();
			const client = process.cpuUsage();
			const wall = performance.now();
			for (let i = 0; i < COUNT; i++) await form.message();
			const { user, system } = process.cpuUsage(client);
			form.wall.push(((performance.now() - wall) * 1000) / COUNT);
			form.client.push((user + system) / COUNT);
			form.backend.push((cpuNs(form.pid) - backend) / 1000 / COUNT);
			form.cluster.push((postgresCpuUs() - cluster) / COUNT);
		}
	}
	console.log(`one statement a step: ${ROUNDS} rounds of ${COUNT} messages a form, after ${WARM}; µs a message`);
	const base = forms.find((form) => form.name === "store") ?? forms[0];
	for (const form of forms) {
		const ratio = (key) => form[key].map((v, i) => (v / base[key][i]).toFixed(2)).join(" ");
		console.log(
			`  ${form.name.padEnd(9)} backend ${figure(form.backend)}  cluster ${figure(form.cluster)}  client ${figure(form.client)}  both ${figure(form.backend.map((v, i) => v + form.client[i]))}  wall ${figure(form.wall)}`,
		);
		if (form !== base)
			console.log(
				`            ÷ ${base.name} by round: backend ${ratio("backend")}; cluster ${ratio("cluster")}; client ${ratio("client")}`,
			);
	}
	// Every form wrote what the service writes: each message delivered, with its three events, its
	// attempt, its usage, and its job gone.
	const check = new pg.Client({ connectionString: url });
	await check.connect();
	const { rows: written } = await check.query(`select
		(select count(*) from "messages") as messages,
		(select count(*) from "message_states" where "status" = 'delivered') as delivered,
		(select count(*) from "events") as events,
		(select count(*) from "message_attempts") as attempts,
		(select count(*) from "jobs") as jobs,
		(select "value" from "usage_counters" where "metric" = 'live_messages') as counted`);
	await check.end();
	console.log(`  written: ${JSON.stringify(written[0])}`);
} finally {
	clearInterval(keepOpen);
	for (const form of forms) await form.connection?.end();
	await store?.close();
	stopDatabase();
}
