// COMMIT with the last statements (As2Store.commitWith, stop 35) against COMMIT after their
// answers, in one process and one build, rounds alternating (A, B, A, B …) so that the machine's
// load touches both alike. Each message is two transactions shaped like the service's: the
// submission's (the message's insert awaited, then the usage upsert, the send job and the event
// with its fan-out check) and the outcome's (the move awaited, then the job's completion, two
// events and the attempt). A awaits the last group with Promise.all, then COMMIT goes; B hands
// it to commitWith. CPU µs a message of this process and of the backends (/proc, 10 ms ticks),
// and wall µs a message, median (min–max) of rounds. PostgreSQL is a throwaway cluster
// (test/pg/cluster.mjs) unless PG_TEST_URL is set.
//
//   npm run build && node packages/storage-pg/bench/commit-with.mjs
import { benchDatabase, messageEvent as event, sentAttempt } from "./bench-database.mjs";

const COUNT = Number(process.env.BENCH_MESSAGES ?? 2000);
const ROUNDS = Number(process.env.BENCH_RUNS ?? 9);
const { createPgStore } = await import(new URL("../dist/index.js", import.meta.url).href);

const { url, postgresCpuUs, stop: stopDatabase } = await benchDatabase();

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const range = (values) => `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`;

try {
	const store = await createPgStore({ url, checkTransactions: false });
	const shapes = [
		["A", (_tx, calls) => Promise.all(calls)],
		["B", (tx, calls) => tx.commitWith(calls)],
	];
	let n = 0;
	const message = async (last) => {
		const worker = `w${n++}`;
		const now = new Date();
		let job;
		await store.transaction(async (tx) => {
			// The message's insert, as the submission's first statement (an id sequence's next value).
			await tx.ids.next("msg_");
			const claimed = tx.jobs.enqueueClaimed({ kind: "send", payload: { messageId: "msg_000001" }, runAt: now }, now, {
				workerId: worker,
				lockedUntil: new Date(now.getTime() + 60_000),
			});
			claimed.then((written) => {
				job = written;
			});
			await last(tx, [
				tx.usage.incrementMany({
					accountId: "acc_bench",
					period: "2026-11",
					by: { live_messages: 1, live_bytes: 10_240 },
				}),
				claimed,
				tx.events.appendNewWithFanOut(event("message.queued"), { kind: "webhook.fan-out", runAt: now }),
			]);
		});
		await store.transaction(async (tx) => {
			// The move, as the outcome's first statement.
			await tx.ids.next("att_");
			await last(tx, [
				tx.jobs.complete(job.id, worker),
				tx.events.appendNew(event("message.sent")),
				tx.events.appendNew(event("message.delivered")),
				tx.messageAttempts.create(sentAttempt(`msg_${n}`, now)),
			]);
		});
	};
	const round = async (last) => {
		const backend = postgresCpuUs();
		const start = process.cpuUsage();
		const wall = performance.now();
		for (let i = 0; i < COUNT; i++) await message(last);
		const { user, system } = process.cpuUsage(start);
		return {
			client: (user + system) / COUNT,
			backend: (postgresCpuUs() - backend) / COUNT,
			wall: ((performance.now() - wall) * 1000) / COUNT,
		};
	};
	for (const [, last] of shapes) await round(last); // warm-up
	const results = new Map(shapes.map(([name]) => [name, []]));
	for (let r = 0; r < ROUNDS; r++) {
		// Alternating which goes first, so that neither always follows the other.
		const order = r % 2 === 0 ? shapes : [...shapes].reverse();
		for (const [name, last] of order) results.get(name).push(await round(last));
	}
	for (const [name, values] of results) {
		const of = (key) => values.map((v) => v[key]);
		console.log(
			`${name}: client ${median(of("client")).toFixed(1)} µs a message (${range(of("client"))}), PostgreSQL ${median(of("backend")).toFixed(1)} (${range(of("backend"))}), wall ${median(of("wall")).toFixed(1)} (${range(of("wall"))}); ${ROUNDS} rounds of ${COUNT}`,
		);
	}
	const [a, b] = [...results.values()];
	for (const key of ["client", "backend", "wall"]) {
		console.log(`B ÷ A, ${key}, by round: ${a.map((v, i) => (b[i][key] / v[key]).toFixed(2)).join(" ")}`);
	}
	await store.close();
} finally {
	stopDatabase();
}
