// Lone ops of one statement on the root store, two builds side by side (A: BENCH_STORE_MODULE_A,
// default this build; B: this build), rounds interleaved (A, B, B, A, …), each on a file database
// of its own holding BENCH_ROWS messages:
//   move   the sender's move to `processing` (send.ts: messages.transition, no event, on the
//          root store), each awaited before the next, nothing else in its turn;
//   read   a message read by its key (messages.getById), each awaited before the next.
// CPU µs per op (process.cpuUsage: adapter, driver and SQLite) and statements per op (every
// better-sqlite3 run/get/all of either build, BEGIN and COMMIT included). Reads the built
// packages: `npm run build` first.
//
//   BENCH_STORE_MODULE_A=/path/to/main/packages/storage-sqlite/dist/index.js \
//     node packages/storage-sqlite/bench/lone-statements.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { abBuilds, prefill, queuedMessages } from "./message-steps.mjs";

const BUILDS = abBuilds();
const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const COUNT = Number(process.env.BENCH_MESSAGES ?? 500);
const ROUNDS = Number(process.env.BENCH_RUNS ?? 9);

let statements = 0;
/** Counts the statements of the better-sqlite3 that `module` loads (each build may load its own). */
function countStatements(module) {
	const Database = createRequire(module)("better-sqlite3");
	const prototype = Object.getPrototypeOf(new Database(":memory:").prepare("select 1"));
	if (prototype.counted) return;
	prototype.counted = true;
	for (const method of ["run", "get", "all"]) {
		const original = prototype[method];
		prototype[method] = function (...args) {
			statements++;
			return original.apply(this, args);
		};
	}
}

const dir = mkdtempSync(join(tmpdir(), "as2kit-lone-statements-"));
const stores = {};
try {
	let n = ROWS;
	for (const [name, module] of Object.entries(BUILDS)) {
		countStatements(module);
		const { createSqliteStore } = await import(module);
		stores[name] = createSqliteStore({ url: join(dir, `${name}.sqlite`), searchIndexing: false });
		await prefill(stores[name], ROWS);
	}
	/** `count` queued messages to move. */
	const queued = async (store, count) => {
		const ids = await queuedMessages(store, count, "lone", n);
		n += count;
		return ids;
	};
	const shapes = {
		move: async (store, ids) => {
			for (const id of ids) {
				const moved = await store.messages.transition(id, ["queued", "processing"], {
					status: "processing",
					attempts: 1,
					lastAttemptAt: new Date(),
					mic: "abc, sha-256",
					updatedAt: new Date(),
				});
				if (moved?.status !== "processing") throw new Error(`${id} did not move`);
			}
		},
		read: async (store, ids) => {
			for (const id of ids) if (!(await store.messages.getById(id))) throw new Error(`${id} is not there`);
		},
	};
	const results = {};
	const order = ["A", "B", "B", "A"];
	for (let round = 0; round < ROUNDS * 2; round++) {
		const name = order[round % order.length];
		for (const [shape, run] of Object.entries(shapes)) {
			const ids = await queued(stores[name], COUNT);
			statements = 0;
			const before = process.cpuUsage();
			await run(stores[name], ids);
			const used = process.cpuUsage(before);
			const key = `${shape} ${name}`;
			results[key] = results[key] ?? [];
			results[key].push({
				us: (used.user + used.system) / COUNT,
				statements: statements / COUNT,
			});
		}
	}
	for (const [key, runs] of Object.entries(results).sort(([a], [b]) => a.localeCompare(b))) {
		const us = runs.map((r) => r.us).sort((a, b) => a - b);
		console.log(
			`${key.padEnd(7)} CPU µs per op: median ${us[us.length >> 1].toFixed(1)} (min ${us[0].toFixed(1)}, max ${us.at(-1).toFixed(1)}), ${runs.length} rounds of ${COUNT}; statements per op ${runs[0].statements.toFixed(2)}`,
		);
	}
} finally {
	for (const store of Object.values(stores)) await store.close();
	rmSync(dir, { recursive: true, force: true });
}
