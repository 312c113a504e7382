import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The committed bin (what `npx as2kit` starts), which loads the build (`npm test` builds first). */
const BIN = fileURLToPath(new URL("../../bin/as2kit.js", import.meta.url));

export interface CliRun {
	/** The exit code: 0 ok, 1 negative result, 2 usage error, 3 input error. */
	code: number | null;
	stdout: string;
	stderr: string;
	/** stdout as JSON; null when it is not. */
	// biome-ignore lint/suspicious/noExplicitAny: the command's JSON output
	json: any;
}

/** Runs `as2kit` as a subprocess, as a script does; bounded by a timeout. */
export function as2kit(...args: string[]): CliRun {
	const result = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 60_000 });
	let json: unknown = null;
	try {
		json = JSON.parse(result.stdout);
	} catch {}
	return { code: result.status, stdout: result.stdout, stderr: result.stderr, json };
}
