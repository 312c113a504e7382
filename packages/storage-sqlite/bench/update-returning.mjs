// A message's move as SQLite runs it: the UPDATE then its row read back by key (what
// messages.ts does), against one `UPDATE … RETURNING` of every column. Raw better-sqlite3 with the
// adapter's pragmas (create-store.ts: WAL, synchronous NORMAL, temp_store MEMORY) on a file
// database holding BENCH_ROWS messages written through the built adapter; each round moves
// BENCH_MESSAGES fresh messages to `processing` (the send job's first move) and then to
// `delivered` (its outcome), one move a transaction, the forms interleaved round by round:
//   in a transaction   BEGIN IMMEDIATE, the move, COMMIT (a move inside a body);
//   lone               the root store's shape: BEGIN, UPDATE, SELECT, COMMIT (connection.ts,
//                      `atomically`), against the UPDATE … RETURNING alone in autocommit.
// CPU µs per move (process.cpuUsage), median and min–max of rounds.
//
//   [BENCH_MOVES=processing] node packages/storage-sqlite/bench/update-returning.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { outboundMessage, prefill } from "./message-steps.mjs";

const MODULE = new URL(process.env.BENCH_STORE_MODULE ?? "../dist/index.js", import.meta.url);
const { createSqliteStore } = await import(MODULE.href);
const Database = createRequire(MODULE)("better-sqlite3");

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const COUNT = Number(process.env.BENCH_MESSAGES ?? 500);
const ROUNDS = Number(process.env.BENCH_RUNS ?? 7);
/** The moves each message makes: `processing,delivered` (default), or one of them. */
const MOVES = (process.env.BENCH_MOVES ?? "processing,delivered").split(",");
/** Forms compared (below): each round gives each its own fresh messages. */
const FORMS = 5;

const dir = mkdtempSync(join(tmpdir(), "as2kit-update-returning-"));
const file = join(dir, "db.sqlite");
try {
	const store = createSqliteStore({ url: file, searchIndexing: false });
	await prefill(store, ROWS);
	let n = ROWS;
	const fresh = async () => {
		const ids = [];
		await store.transaction(async (tx) => {
			for (let i = 0; i < COUNT * FORMS; i++, n++) {
				const { id: _, ...message } = outboundMessage(`m-${n}`, new Date(), n);
				ids.push(await tx.messages.createNew(message));
			}
		});
		return ids;
	};
	const batches = [];
	for (let round = 0; round < ROUNDS; round++) batches.push(await fresh());
	await store.close();

	const db = new Database(file);
	db.pragma("journal_mode = WAL");
	db.pragma("synchronous = NORMAL");
	// The adapter's (create-store.ts): reads through the map, an 8 MiB cache.
	db.pragma("mmap_size = 2147483648");
	db.pragma("cache_size = -8192");
	db.pragma("temp_store = MEMORY");
	const columns = db
		.prepare(`select name from pragma_table_info('messages') order by cid`)
		.pluck()
		.all()
		.map((c) => `"${c}"`)
		.join(", ");
	const TO_PROCESSING = `update "messages" set "status" = ?, "attempts" = ?, "last_attempt_at" = ?, "mic" = ?, "updated_at" = ? where "id" = ? and "status" in (?, ?)`;
	const TO_DELIVERED = `update "messages" set "status" = ?, "mdn_status" = ?, "mdn_data" = ?, "sent_at" = ?, "delivered_at" = ?, "error_code" = ?, "error_message" = ?, "transmission_time_ms" = ?, "updated_at" = ? where "id" = ? and "status" in (?)`;
	const READ = `select ${columns} from "messages" where "id" = ?`;
	const begin = db.prepare("BEGIN IMMEDIATE");
	const commit = db.prepare("COMMIT");
	const read = db.prepare(READ).raw(true);
	const plain = { processing: db.prepare(TO_PROCESSING), delivered: db.prepare(TO_DELIVERED) };
	const returning = {
		processing: db.prepare(`${TO_PROCESSING} returning ${columns}`).raw(true),
		delivered: db.prepare(`${TO_DELIVERED} returning ${columns}`).raw(true),
	};
	const now = () => new Date().toISOString();
	const args = {
		processing: (id) => ["processing", 1, now(), "abc, sha-256", now(), id, "queued", "processing"],
		delivered: (id) => [
			"delivered",
			"received",
			JSON.stringify({ disposition: "processed" }),
			now(),
			now(),
			null,
			null,
			120,
			now(),
			id,
			"processing",
		],
	};
	const beginDeferred = db.prepare("BEGIN");
	const moved = (row, id) => {
		if (row === undefined) throw new Error(`${id} did not move`);
		return row;
	};
	const updateThenRead = (move, id) => {
		if (plain[move].run(...args[move](id)).changes === 0) throw new Error(`${id} did not move`);
		return read.get(id);
	};
	const updateReturning = (move, id) => moved(returning[move].get(...args[move](id)), id);
	/** Each form moves one message, transaction included. */
	const forms = {
		"in a transaction: update + read": (move, id) => {
			begin.run();
			updateThenRead(move, id);
			commit.run();
		},
		"in a transaction: update … returning": (move, id) => {
			begin.run();
			updateReturning(move, id);
			commit.run();
		},
		"lone: BEGIN, update, read, COMMIT": (move, id) => {
			beginDeferred.run();
			updateThenRead(move, id);
			commit.run();
		},
		"lone: update … returning, autocommit": updateReturning,
		// `get` resets the statement after its row, and better-sqlite3 ignores what the reset
		// returns: the autocommit's COMMIT happens there, so a failed one would go unseen. `all`
		// steps to the end, where the COMMIT's error is thrown: the only safe form (stop 32).
		"lone: update … returning, autocommit, all": (move, id) => moved(returning[move].all(...args[move](id))[0], id),
	};
	const names = Object.keys(forms);
	const results = Object.fromEntries(names.map((name) => [name, []]));
	for (const [round, ids] of batches.entries()) {
		// Each form its own messages, the order rotating, so no form always runs first.
		for (let k = 0; k < names.length; k++) {
			const name = names[(k + round) % names.length];
			const slice = ids.slice(k * COUNT, (k + 1) * COUNT);
			const before = process.cpuUsage();
			for (const move of MOVES) for (const id of slice) forms[name](move, id);
			const used = process.cpuUsage(before);
			results[name].push((used.user + used.system) / (slice.length * MOVES.length));
		}
	}
	db.close();
	const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
	console.log(
		`${ROWS} messages, ${ROUNDS} rounds of ${COUNT} messages × ${MOVES.join(", ")}, CPU µs per move with its transaction:`,
	);
	for (const [name, us] of Object.entries(results))
		console.log(
			`  ${name.padEnd(42)} median ${median(us).toFixed(1)}  min–max ${Math.min(...us).toFixed(1)}–${Math.max(...us).toFixed(1)}`,
		);
} finally {
	rmSync(dir, { recursive: true, force: true });
}
