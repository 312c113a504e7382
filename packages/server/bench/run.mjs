// The server's benchmarks (`npm run bench`): each a separate process so figures do not
// disturb one another. `node packages/server/bench/run.mjs throughput|floor|large|s3-large|webhooks|messages-list|epcis|instances|console-list` runs one.
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const benches = {
	throughput: "throughput.mjs",
	// Right after throughput: the platform's floor per message at the same moment (stop 30), the
	// server's work without its store, service and framework; the other variants by FLOOR_VARIANTS.
	floor: "floor.mjs",
	large: "large.mjs",
	"s3-large": "s3-large.mjs",
	webhooks: "webhooks.mjs",
	"messages-list": "messages-list.mjs",
	epcis: "epcis-query.mjs",
	instances: "instances.mjs",
	"console-list": "console-list.mjs",
};
/**
 * Every message creates payload files. On ext4 without a journal (this project's CI machines),
 * the inode allocator checks each recently deleted inode of a block group before reusing one,
 * so for minutes after a test suite or a benchmark deleted thousands of files, creating one
 * costs up to a millisecond of kernel time and every figure here drops. Say so up front.
 */
function checkFileCreation() {
	const dir = mkdtempSync(join(tmpdir(), "as2kit-bench-fs-"));
	const started = performance.now();
	for (let i = 0; i < 200; i++) closeSync(openSync(join(dir, String(i)), "wx"));
	const perFile = (performance.now() - started) / 200;
	if (perFile > 0.2) {
		console.log(
			`warning: creating a file in ${tmpdir()} takes ${perFile.toFixed(2)} ms (recently deleted inodes?); figures will be low. Wait a few minutes or set TMPDIR to a new top-level directory.`,
		);
	}
	return dir;
}
const probe = checkFileCreation();
process.once("exit", () => rmSync(probe, { recursive: true, force: true }));

const only = process.argv[2];
let failed = false;
for (const [name, script] of Object.entries(benches)) {
	if (only && only !== name) continue;
	const env = name === "floor" ? { FLOOR_VARIANTS: "full", ...process.env } : process.env;
	const result = spawnSync(process.execPath, [join(here, script)], { stdio: "inherit", env });
	if (result.status !== 0) failed = true;
}
process.exitCode = failed ? 1 : 0;
