// The client's CPU for the statements of a message whose answers are short (a new id, a flag, the
// usage totals, a job's completion, an insert without rows), two builds in one process, rounds
// alternating (A, B, A, B …) so that the machine's load touches both alike: BENCH_BASE_MODULE (A,
// e.g. a base worktree's dist/index.js) and this package's dist (B). Each message is two
// transactions shaped like the service's: the submission's (the usage upsert of two counters, the
// send job, the event with its fan-out check, sent together) and the outcome's (the job's
// completion, two events and the attempt, sent together). CPU µs a message of this process, and
// of the backends (/proc, 10 ms ticks), median (min–max) of rounds. PostgreSQL is a throwaway
// cluster (test/pg/cluster.mjs) unless PG_TEST_URL is set.
//
//   BENCH_BASE_MODULE=/path/to/base/packages/storage-pg/dist/index.js node packages/storage-pg/bench/short-answers.mjs
import { benchDatabase, messageEvent as event, sentAttempt } from "./bench-database.mjs";

const COUNT = Number(process.env.BENCH_MESSAGES ?? 2000);
const ROUNDS = Number(process.env.BENCH_RUNS ?? 9);
const builds = [
	["A", process.env.BENCH_BASE_MODULE],
	["B", new URL("../dist/index.js", import.meta.url).href],
].filter(([, module]) => module);

const { url, postgresCpuUs, stop: stopDatabase } = await benchDatabase();

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const range = (values) => `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`;

try {
	const stores = [];
	for (const [name, module] of builds) {
		const { createPgStore } = await import(module);
		stores.push([name, await createPgStore({ url, checkTransactions: false })]);
	}
	let n = 0;
	const message = async (store) => {
		const worker = `w${n++}`;
		const now = new Date();
		const job = await store.transaction(async (tx) => {
			const [, job] = await Promise.all([
				tx.usage.incrementMany({
					accountId: "acc_bench",
					period: "2026-11",
					by: { live_messages: 1, live_bytes: 10_240 },
				}),
				tx.jobs.enqueueClaimed({ kind: "send", payload: { messageId: "msg_000001" }, runAt: now }, now, {
					workerId: worker,
					lockedUntil: new Date(now.getTime() + 60_000),
				}),
				tx.events.appendNewWithFanOut(event("message.queued"), { kind: "webhook.fan-out", runAt: now }),
			]);
			return job;
		});
		await store.transaction(async (tx) => {
			await Promise.all([
				tx.jobs.complete(job.id, worker),
				tx.events.appendNew(event("message.sent")),
				tx.events.appendNew(event("message.delivered")),
				tx.messageAttempts.create(sentAttempt(`msg_${n}`, now)),
			]);
		});
	};
	const round = async (store) => {
		const backend = postgresCpuUs();
		const start = process.cpuUsage();
		for (let i = 0; i < COUNT; i++) await message(store);
		const { user, system } = process.cpuUsage(start);
		return { client: (user + system) / COUNT, backend: (postgresCpuUs() - backend) / COUNT };
	};
	for (const [, store] of stores) await round(store); // warm-up
	const results = new Map(stores.map(([name]) => [name, []]));
	for (let r = 0; r < ROUNDS; r++) for (const [name, store] of stores) results.get(name).push(await round(store));
	for (const [name, values] of results) {
		const client = values.map((v) => v.client);
		const backend = values.map((v) => v.backend);
		console.log(
			`${name}: client ${median(client).toFixed(1)} µs a message (${range(client)}), PostgreSQL ${median(backend).toFixed(1)} (${range(backend)}); ${ROUNDS} rounds of ${COUNT}; client by round: ${client.map((v) => v.toFixed(1)).join(" ")}`,
		);
	}
	if (results.size === 2) {
		const [a, b] = [...results.values()];
		console.log(`B ÷ A, client, by round: ${a.map((v, i) => (b[i].client / v.client).toFixed(2)).join(" ")}`);
	}
	await Promise.all(stores.map(([, store]) => store.close()));
} finally {
	stopDatabase();
}
