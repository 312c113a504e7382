// The server's benchmarks (`npm run bench`): each a separate process so figures do not
// disturb one another. `node packages/server/bench/run.mjs throughput|large|webhooks|messages-list|epcis|instances` runs one.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const benches = {
	throughput: "throughput.mjs",
	large: "large.mjs",
	webhooks: "webhooks.mjs",
	"messages-list": "messages-list.mjs",
	epcis: "epcis-query.mjs",
	instances: "instances.mjs",
};
const only = process.argv[2];
let failed = false;
for (const [name, script] of Object.entries(benches)) {
	if (only && only !== name) continue;
	const result = spawnSync(process.execPath, [join(here, script)], { stdio: "inherit" });
	if (result.status !== 0) failed = true;
}
process.exitCode = failed ? 1 : 0;
