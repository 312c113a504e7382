// What an AsyncLocalStorage that has run costs every promise of the process on Node 20 (issue
// #20, "The storage adapters without AsyncLocalStorage (stop 30)" in docs/performance-storage.md):
// once one has run, V8 calls Node's promise hooks for every promise made (init, and the
// resolve/before/after of each reaction), until it is disabled. A/B in one process: rounds
// without the hooks, then with (an AsyncLocalStorage entered, as storage-sqlite's transaction
// check does), then without again (disabled), each round timing the same work in CPU time: three
// layers of async functions awaiting each other with a Promise.all, as the service's port calls
// do (together.ts), and its promises counted by an async_hooks init hook run once beforehand.
//
//   node packages/server/bench/promise-hooks.mjs [rounds] [iterations]
import { AsyncLocalStorage, createHook } from "node:async_hooks";

const ROUNDS = Number(process.argv[2] ?? 5);
const ITERATIONS = Number(process.argv[3] ?? 20_000);

const leaf = async (i) => i + 1;
const call = async (i) => (await leaf(i)) + (await leaf(i));
const step = async (i) => {
	const [a, b, c] = await Promise.all([call(i), call(i + 1), call(i + 2)]);
	return a + b + c;
};
async function work() {
	let sum = 0;
	for (let i = 0; i < ITERATIONS; i++) sum += await step(i);
	return sum;
}

/** Promises one `step` makes, counted by an init hook (which itself enables the promise hooks: once, first). */
async function promisesPerStep() {
	let promises = 0;
	const hook = createHook({
		init(_id, type) {
			if (type === "PROMISE") promises++;
		},
	}).enable();
	await step(0);
	hook.disable();
	return promises;
}

async function cpuMicros(fn) {
	const before = process.cpuUsage();
	await fn();
	const used = process.cpuUsage(before);
	return used.user + used.system;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const perPromise = (micros, promises) => micros / (ITERATIONS * promises);

const promises = await promisesPerStep();
await work(); // warm up the functions before any round counts
const storage = new AsyncLocalStorage();
const rounds = { without: [], with: [], "without again": [] };
for (let round = 0; round < ROUNDS; round++) {
	rounds.without.push(await cpuMicros(work));
	rounds.with.push(await storage.run(true, () => cpuMicros(work)));
	storage.disable();
	rounds["without again"].push(await cpuMicros(work));
}
console.log(
	`${promises} promises per step, ${ITERATIONS} steps, ${ROUNDS} rounds; µs of CPU per promise, median (min–max):`,
);
for (const [name, micros] of Object.entries(rounds)) {
	const each = micros.map((m) => perPromise(m, promises));
	console.log(
		`  ${name.padEnd(14)} ${median(each).toFixed(4)} (${Math.min(...each).toFixed(4)}–${Math.max(...each).toFixed(4)})`,
	);
}
const extra = rounds.with.map((m, i) => perPromise(m - (rounds.without[i] + rounds["without again"][i]) / 2, promises));
console.log(
	`  hooks' share  ${median(extra).toFixed(4)} (${Math.min(...extra).toFixed(4)}–${Math.max(...extra).toFixed(4)}) per promise`,
);
