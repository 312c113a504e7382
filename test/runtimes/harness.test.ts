/**
 * The runtime harness (harness.mjs) off linux-x64: there npm skips the Bun, Deno and workerd
 * packages (root optionalDependencies), and Node alone must still run the suite.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { scratchDir } from "../setup/scratch-dirs.ts";

const harness = fileURLToPath(new URL("harness.mjs", import.meta.url));

describe("the runtime harness", () => {
	it("runs the Node row when no other runtime's package is installed", () => {
		// Removed after this file by test/setup/remove-scratch-dirs.ts.
		const dir = scratchDir("as2kit-harness-");
		// Node's resolver, told that the other runtimes' packages are not there (npm skipped them).
		const preload = join(dir, "without-runtimes.cjs");
		writeFileSync(
			preload,
			`const Module = require("node:module");
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
	if (/^@(oven|deno|cloudflare)\\//.test(request))
		throw Object.assign(new Error("Cannot find module '" + request + "'"), { code: "MODULE_NOT_FOUND" });
	return resolve.call(this, request, ...rest);
};
`,
		);
		const script = `import { makeKeys, runOnRuntime, runtimeVersion } from ${JSON.stringify(harness)};
const dir = ${JSON.stringify(dir)};
const version = runtimeVersion("node");
const bench = await runOnRuntime("node", { dir, mode: "bench", input: { keys: makeKeys(dir), seconds: 0 }, timeoutMs: 60_000 });
console.log(JSON.stringify({ version, roundTrips: bench.roundTrips }));
`;
		const child = spawnSync(process.execPath, ["--require", preload, "--input-type=module", "--eval", script], {
			encoding: "utf8",
			timeout: 90_000,
		});
		expect(child.status, child.stderr).toBe(0);
		expect(JSON.parse(child.stdout)).toEqual({ version: process.versions.node, roundTrips: 0 });
	});
});
