// (d) Small-message round trips per second of the built core on each JavaScript runtime beside
// Node, same machine, same run (issue #17): test/runtimes/roundtrip-suite.mjs's `benchSmall`
// (10 KB, sha256 + aes256 + zlib, signed MDN built and verified), one process per run.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RUNTIMES, runOnRuntime, runtimeVersion } from "../../../test/runtimes/harness.mjs";
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
	const medians = {};
	const lines = [];
	for (const runtime of RUNTIMES) {
		const rates = [];
		for (let run = 0; run < RUNS; run++) {
			const result = await runOnRuntime(runtime, {
				dir,
				mode: "bench",
				input: { keys, seconds: SECONDS },
				timeoutMs: (SECONDS + 120) * 1000,
			});
			rates.push(result.perSecond);
		}
		const s = summary(rates);
		medians[runtime] = s.median;
		lines.push({ runtime, version: runtimeVersion(runtime), s });
	}
	console.log(
		`(d) small round trip per runtime (10 KB, sha256 + aes256 + zlib, signed MDN), ${RUNS} × ${SECONDS} s each`,
	);
	for (const { runtime, version, s } of lines)
		console.log(
			`    ${`${runtime} ${version}`.padEnd(44)} median ${fmt(s.median, 0)}/s (min ${fmt(s.min, 0)}, max ${fmt(s.max, 0)}, noise ${fmt(s.noisePct)}%)  → ${fmt(s.median / medians.node, 2)}× node`,
		);
} finally {
	rmSync(dir, { recursive: true, force: true });
}
