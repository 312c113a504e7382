// (d) Small-message round trips per second of the built core on each JavaScript runtime (Node
// 22 and 24, Bun, Deno, workerd) beside the project's Node 20, same machine, same run (issue
// #17): test/runtimes/roundtrip-suite.mjs's `benchSmall` (10 KB, sha256 + aes256 + zlib, signed
// MDN built and verified), one process per run. The runtimes take turns run after run, so a
// burst of load on the shared machine falls on all of them rather than on one.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prepareRuntime, RUNTIMES, runOnRuntime, runtimeVersion } from "../../../test/runtimes/harness.mjs";
import { fmt, summary } from "./stats.mjs";

const keysDir = process.argv[2];
const keys = Object.fromEntries(
	["alice", "bob"].map((name) => [
		name,
		{
			key: readFileSync(join(keysDir, `${name}.key`), "utf8"),
			cert: readFileSync(join(keysDir, `${name}.crt`), "utf8"),
		},
	]),
);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const dir = mkdtempSync(join(tmpdir(), "as2kit-bench-runtimes-"));
try {
	// Node 22/24 are installed on first use; offline they are left out, with the reason.
	const runtimes = [];
	for (const runtime of RUNTIMES) if ((await prepareRuntime(runtime)) === null) runtimes.push(runtime);
	const rates = Object.fromEntries(runtimes.map((runtime) => [runtime, []]));
	for (let run = 0; run < RUNS; run++)
		for (const runtime of runtimes) {
			const result = await runOnRuntime(runtime, {
				dir,
				mode: "bench",
				input: { keys, seconds: SECONDS },
				timeoutMs: (SECONDS + 120) * 1000,
			});
			rates[runtime].push(result.perSecond);
		}
	const node = summary(rates.node).median;
	console.log(
		`(d) small round trip per runtime (10 KB, sha256 + aes256 + zlib, signed MDN), ${RUNS} × ${SECONDS} s each`,
	);
	for (const runtime of runtimes) {
		const s = summary(rates[runtime]);
		const name = `${runtime.replace(/\d+$/, "")} ${runtimeVersion(runtime)}`;
		console.log(
			`    ${name.padEnd(44)} median ${fmt(s.median, 0)}/s (min ${fmt(s.min, 0)}, max ${fmt(s.max, 0)}, noise ${fmt(s.noisePct)}%)  → ${fmt(s.median / node, 2)}× node ${process.versions.node}`,
		);
	}
} finally {
	rmSync(dir, { recursive: true, force: true });
}
