// `npm run bench` (server): the webhook delivery benchmark of issue #6. Arguments go through
// to webhooks.mjs: [events] [runs] [paced rate per second].
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const result = spawnSync(process.execPath, [join(here, "webhooks.mjs"), ...process.argv.slice(2)], {
	stdio: "inherit",
});
process.exitCode = result.status ?? 1;
