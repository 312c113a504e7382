// `npm run bench`: the benchmarks of issues #2 and #7, each against a reference measured in the same run.
// (a) small-message round trips per second on one core vs the RSA-2048 private-key ceiling;
// (b) 1 GB sign + encrypt build and parse vs `openssl cms -sign -stream | openssl cms -encrypt -stream`;
// (c) `epcis`: EPCIS validation events/s and peak RSS at 10 MB and 50 MB vs `xmllint --stream --schema`;
// (d) `runtimes`: (a)'s round trip per second on Node 22/24, Bun, Deno and workerd beside Node 20 (issue #17).
// Figures: median of several runs, with min–max as the machine's noise.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "as2kit-bench-"));
const only = process.argv[2];
try {
	for (const name of only === "epcis" ? [] : ["alice", "bob"]) {
		execFileSync(
			"openssl",
			[
				"req",
				"-x509",
				"-newkey",
				"rsa:2048",
				"-nodes",
				"-keyout",
				join(dir, `${name}.key`),
				"-out",
				join(dir, `${name}.crt`),
				"-subj",
				`/CN=${name}`,
				"-days",
				"30",
			],
			{ stdio: "ignore" },
		);
	}
	if (!only || only === "small") runChild("small-roundtrip.mjs", [dir]);
	if (!only || only === "large") runChild("large-stream.mjs", [dir, process.env.BENCH_BYTES ?? String(1024 ** 3)]);
	if (!only || only === "epcis") runChild("epcis-validate.mjs", [dir]);
	if (!only || only === "runtimes") runChild("runtimes.mjs", [dir]);
} finally {
	rmSync(dir, { recursive: true, force: true });
}

function runChild(script, args) {
	const result = spawnSync(process.execPath, ["--expose-gc", join(here, script), ...args], { stdio: "inherit" });
	if (result.status !== 0) process.exitCode = 1;
}
