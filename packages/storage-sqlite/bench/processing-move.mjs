// The sender's move to `processing` (send.ts: one conditional update on the root store, no
// event) in the server's two shapes, on a file database holding BENCH_ROWS messages:
//   alone    each move awaited before the next (nothing else in its turn),
//   paired   each move made in one turn with another message's submission transaction
//            (message-steps.mjs: message, event, send job), as the sender's worker and its
//            HTTP requests interleave.
// CPU µs per message (this process: adapter, driver and SQLite), and COMMITs per message.
// Reads the built package: `npm run build` first; BENCH_STORE_MODULE for another build (A/B).
//
//   node packages/storage-sqlite/bench/processing-move.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prefill, queuedMessages, steps } from "./message-steps.mjs";

const MODULE = new URL(process.env.BENCH_STORE_MODULE ?? "../dist/index.js", import.meta.url);
const { createSqliteStore } = await import(MODULE.href);
// The driver that build loads (another checkout's, in an A/B pair), to count its COMMITs.
const Database = createRequire(MODULE)("better-sqlite3");

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const COUNT = Number(process.env.BENCH_MESSAGES ?? 500);
const ROUNDS = Number(process.env.BENCH_RUNS ?? 5);

let commits = 0;
const prototype = Object.getPrototypeOf(new Database(":memory:").prepare("select 1"));
const run = prototype.run;
prototype.run = function (...args) {
	if (this.source === "COMMIT") commits++;
	return run.apply(this, args);
};

const dir = mkdtempSync(join(tmpdir(), "as2kit-processing-move-"));
const store = createSqliteStore({ url: join(dir, "db.sqlite"), searchIndexing: false });
try {
	await prefill(store, ROWS);
	let n = ROWS;
	/** `count` queued messages to move. */
	const queued = async (count) => {
		const ids = await queuedMessages(store, count, "move", n);
		n += count;
		return ids;
	};
	const move = (id) =>
		store.messages
			.transition(id, ["queued", "processing"], {
				status: "processing",
				attempts: 1,
				lastAttemptAt: new Date(),
				mic: "abc, sha-256",
				updatedAt: new Date(),
			})
			.then((moved) => {
				if (!moved) throw new Error(`${id} did not move`);
			});
	const shapes = {
		alone: async (ids) => {
			for (const id of ids) await move(id);
		},
		paired: async (ids) => {
			for (const id of ids) await Promise.all([steps.submit(store, n++), move(id)]);
		},
	};
	const results = { alone: [], paired: [] };
	for (let round = 0; round < ROUNDS; round++) {
		for (const [name, shape] of Object.entries(shapes)) {
			const ids = await queued(COUNT);
			commits = 0;
			const before = process.cpuUsage();
			await shape(ids);
			const used = process.cpuUsage(before);
			results[name].push({ us: (used.user + used.system) / COUNT, commits: commits / COUNT });
		}
	}
	for (const [name, runs] of Object.entries(results)) {
		const us = runs.map((r) => r.us).sort((a, b) => a - b);
		console.log(
			`${name.padEnd(7)} CPU µs per message: median ${us[us.length >> 1].toFixed(1)} (min ${us[0].toFixed(1)}, max ${us.at(-1).toFixed(1)}), ${ROUNDS} rounds of ${COUNT}; COMMITs per message ${runs[0].commits.toFixed(2)}`,
		);
	}
} finally {
	await store.close?.();
	rmSync(dir, { recursive: true, force: true });
}
