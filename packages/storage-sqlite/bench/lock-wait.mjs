// How long a write waits past the release of another connection's write lock: the checkpoint
// thread's RESTART holds it 4–25 ms about once a second under load (background-checkpoints.ts),
// and every transaction of the event loop's connection queues behind the one retrying
// (connection.ts, `whileBusy`). Two builds side by side (A: BENCH_STORE_MODULE_A, default this
// build; B: this build), rounds interleaved: a raw connection takes the write lock (BEGIN
// IMMEDIATE), the store's write starts at once, the lock is released after BENCH_HOLDS ms; the
// figure is the time from the release (COMMIT returned) to the write's answer, median, p90 and
// max over the rounds, and the tries that found the lock. Reads the built package: `npm run
// build` first.
//
//   BENCH_STORE_MODULE_A=/path/to/base/packages/storage-sqlite/dist/index.js \
//     node packages/storage-sqlite/bench/lock-wait.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { abBuilds } from "./message-steps.mjs";

const BUILDS = abBuilds();
const HOLDS = (process.env.BENCH_HOLDS ?? "5,10,20").split(",").map(Number);
const ROUNDS = Number(process.env.BENCH_RUNS ?? 40);
const T0 = new Date("2026-01-01T00:00:00.000Z");

const dir = mkdtempSync(join(tmpdir(), "as2kit-lock-wait-"));
try {
	const setups = {};
	for (const [name, module] of Object.entries(BUILDS)) {
		const { createSqliteStore } = await import(module);
		const url = join(dir, `${name}.sqlite`);
		const store = createSqliteStore({ url });
		await store.jobs.list();
		const Database = createRequire(module)("better-sqlite3");
		const holder = new Database(url);
		holder.pragma("busy_timeout = 0");
		// Each failed try of the store: a SQLITE_BUSY thrown by its build's better-sqlite3.
		const prototype = Object.getPrototypeOf(holder.prepare("select 1"));
		const counter = { busy: 0 };
		if (!prototype.busyCounted) {
			prototype.busyCounted = counter;
			const run = prototype.run;
			prototype.run = function (...args) {
				try {
					return run.apply(this, args);
				} catch (error) {
					if (String(error?.code).startsWith("SQLITE_BUSY")) prototype.busyCounted.busy++;
					throw error;
				}
			};
		}
		setups[name] = { store, holder, counter: prototype.busyCounted };
	}
	const results = {};
	for (const hold of HOLDS) {
		for (let round = 0; round < ROUNDS; round++) {
			for (const name of round % 2 ? ["B", "A"] : ["A", "B"]) {
				const { store, holder, counter } = setups[name];
				const busyBefore = counter.busy;
				holder.prepare("BEGIN IMMEDIATE").run();
				let answeredAt = 0;
				const write = store.jobs.enqueue({ kind: "k", payload: {}, runAt: T0 }, T0).then(() => {
					answeredAt = performance.now();
				});
				await sleep(hold);
				holder.prepare("COMMIT").run();
				const releasedAt = performance.now();
				await write;
				const key = `${name} ${hold}`;
				results[key] ??= { past: [], tries: [] };
				const entry = results[key];
				entry.past.push(answeredAt - releasedAt);
				entry.tries.push(counter.busy - busyBefore);
			}
		}
	}
	const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
	console.log(`the write's answer after the lock's release, ms (${ROUNDS} rounds a build and hold)`);
	console.log("| hold, ms | build | median | p90 | max | tries that found the lock, median |");
	console.log("| ---: | --- | ---: | ---: | ---: | ---: |");
	for (const hold of HOLDS) {
		for (const name of ["A", "B"]) {
			const { past, tries } = results[`${name} ${hold}`];
			const sorted = [...past].sort((a, b) => a - b);
			const triesSorted = [...tries].sort((a, b) => a - b);
			console.log(
				`| ${hold} | ${name} | ${at(sorted, 0.5).toFixed(2)} | ${at(sorted, 0.9).toFixed(2)} | ${sorted.at(-1).toFixed(2)} | ${at(triesSorted, 0.5)} |`,
			);
		}
	}
	for (const { store, holder } of Object.values(setups)) {
		holder.close();
		await store.close();
	}
} finally {
	rmSync(dir, { recursive: true, force: true });
}
