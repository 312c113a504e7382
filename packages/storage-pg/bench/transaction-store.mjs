// The CPU a transaction costs the adapter before any statement: the pooled connection, the
// wire, and the transaction's store with its repositories. Each transaction's body takes the
// repositories a message's outcome uses (messages, attempts, jobs, events, usage) and runs no
// statement, so no BEGIN, COMMIT or round trip is written: what remains is the adapter's own
// work. Two builds in one process, rounds alternating (A, B, A, B …), so that the machine's
// load touches both alike: BENCH_BASE_MODULE (A, e.g. a base worktree's dist/index.js) and
// this package's dist (B). CPU µs per transaction of this process, median (min–max) of rounds.
// PostgreSQL is a throwaway cluster (test/pg/cluster.mjs) unless PG_TEST_URL is set.
//
//   BENCH_BASE_MODULE=/path/to/base/packages/storage-pg/dist/index.js node packages/storage-pg/bench/transaction-store.mjs
import { benchDatabase } from "./bench-database.mjs";

const COUNT = Number(process.env.BENCH_TRANSACTIONS ?? 5000);
const ROUNDS = Number(process.env.BENCH_RUNS ?? 9);
const builds = [
	["A", process.env.BENCH_BASE_MODULE],
	["B", new URL("../dist/index.js", import.meta.url).href],
].filter(([, module]) => module);

const { url, stop: stopDatabase } = await benchDatabase();
try {
	const stores = [];
	for (const [name, module] of builds) {
		const { createPgStore } = await import(module);
		stores.push([name, await createPgStore({ url, checkTransactions: false })]);
	}
	const body = async (tx) => {
		// What the outcome's transaction reaches for (attempts.ts, message-transitions.ts).
		void tx.messages.transition;
		void tx.messageAttempts.create;
		void tx.jobs.complete;
		void tx.events.appendNew;
		void tx.usage.incrementMany;
	};
	const round = async (store) => {
		const start = process.cpuUsage();
		for (let i = 0; i < COUNT; i++) await store.transaction(body);
		const { user, system } = process.cpuUsage(start);
		return (user + system) / COUNT;
	};
	for (const [, store] of stores) await round(store); // warm-up
	const results = new Map(stores.map(([name]) => [name, []]));
	for (let r = 0; r < ROUNDS; r++) for (const [name, store] of stores) results.get(name).push(await round(store));
	for (const [name, values] of results) {
		const sorted = [...values].sort((a, b) => a - b);
		const median = sorted[Math.floor(sorted.length / 2)];
		console.log(
			`${name}: ${median.toFixed(2)} µs a transaction (${sorted[0].toFixed(2)}–${sorted.at(-1).toFixed(2)}), ${ROUNDS} rounds of ${COUNT}; rounds: ${values.map((v) => v.toFixed(1)).join(" ")}`,
		);
	}
	await Promise.all(stores.map(([, store]) => store.close()));
} finally {
	stopDatabase();
}
