// The events of a sent message's outcome: one transaction writing two events of one account
// (`message.sent`, `message.delivered`, each with its webhook check: events.ts), as the sender's
// send job does, for an account without webhook endpoints. Two builds side by side, their rounds
// interleaved (A, B, B, A, …), each on a file database of its own: CPU µs per transaction
// (process.cpuUsage), median and min–max of rounds. BENCH_GROUP transactions are started in one
// turn (default 50), so they share a COMMIT (commit-group.ts) and the statements are most of
// what is measured; BENCH_GROUP=1 commits each alone.
//
//   BENCH_STORE_MODULE_A=/path/to/other/dist/index.js node packages/storage-sqlite/bench/outcome-events.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { abBuilds } from "./message-steps.mjs";

const BUILDS = abBuilds();
const COUNT = Number(process.env.BENCH_MESSAGES ?? 2000);
const ROUNDS = Number(process.env.BENCH_RUNS ?? 9);
const GROUP = Number(process.env.BENCH_GROUP ?? 50);

const dir = mkdtempSync(join(tmpdir(), "as2kit-outcome-events-"));
const stores = {};
try {
	for (const [name, module] of Object.entries(BUILDS)) {
		const { createSqliteStore } = await import(module);
		stores[name] = createSqliteStore({ url: join(dir, `${name}.sqlite`), searchIndexing: false });
	}
	const event = (kind, at) => ({
		accountId: "acc_bench",
		tenantId: "tnt_bench",
		kind,
		data: { id: "msg_000001", status: kind.slice(8) },
		environment: "live",
		createdAt: at,
	});
	const outcome = (store) =>
		store.transaction(async (tx) => {
			const at = new Date();
			for (const kind of ["message.sent", "message.delivered"])
				await tx.events.appendNewWithFanOut(event(kind, at), { kind: "webhook.fan_out", runAt: at });
		});
	const results = { A: [], B: [] };
	for (let round = 0; round < ROUNDS + 1; round++) {
		for (const name of round % 2 ? ["B", "A"] : ["A", "B"]) {
			const before = process.cpuUsage();
			for (let i = 0; i < COUNT; i += GROUP)
				await Promise.all(Array.from({ length: Math.min(GROUP, COUNT - i) }, () => outcome(stores[name])));
			const used = process.cpuUsage(before);
			// The first round of each warms up.
			if (round > 0) results[name].push((used.user + used.system) / COUNT);
		}
	}
	const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
	console.log(`${ROUNDS} rounds of ${COUNT} transactions of two events, ${GROUP} a commit, CPU µs per transaction:`);
	for (const [name, us] of Object.entries(results))
		console.log(
			`  ${name} (${BUILDS[name]}): median ${median(us).toFixed(1)}  min–max ${Math.min(...us).toFixed(1)}–${Math.max(...us).toFixed(1)}`,
		);
} finally {
	for (const store of Object.values(stores)) await store.close();
	rmSync(dir, { recursive: true, force: true });
}
