/**
 * Issue #17: Node 22 and 24 come from the npm registry on the first run that needs them
 * (node-versions.mjs). A developer offline is told why their rows do not run; under CI the rows
 * fail instead of skipping.
 */
import { copyFileSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { scratchDir } from "../setup/scratch-dirs.ts";
import { prepareRuntime } from "./harness.mjs";
import { installNodeVersionsIn } from "./node-versions.mjs";

const pinned = fileURLToPath(new URL("node-versions/", import.meta.url));

afterEach(() => {
	vi.unstubAllEnvs();
});

describe("Node 22 and 24 for the runtime matrix", () => {
	it("says why they cannot be installed when the registry refuses the connection", async () => {
		// Removed after this file by test/setup/remove-scratch-dirs.ts, with npm's cache and logs.
		const dir = scratchDir("as2kit-node-versions-");
		for (const file of ["package.json", "package-lock.json", ".npmrc"])
			copyFileSync(join(pinned, file), join(dir, file));
		const install = installNodeVersionsIn(dir, {
			npm_config_registry: `http://127.0.0.1:${await closedLoopbackPort()}/`,
			// Empty, so nothing comes from an earlier download.
			npm_config_cache: join(dir, "npm-cache"),
			npm_config_fetch_retries: "0",
		});
		await expect(install).rejects.toThrow(/could not be installed: `npm ci` in .* failed[\s\S]*ECONNREFUSED/);
		expect(existsSync(join(dir, ".installing")), "the install lock is released").toBe(false);
	});

	it("fails a Node 22/24 row under CI when they cannot be installed, and elsewhere gives the reason", async () => {
		const offline = () => Promise.reject(new Error("the registry is unreachable"));
		vi.stubEnv("CI", "");
		await expect(prepareRuntime("node22", offline)).resolves.toBe("the registry is unreachable");
		expect(await prepareRuntime("node", offline), "Node 20, the project's, needs no install").toBeNull();
		vi.stubEnv("CI", "true");
		await expect(prepareRuntime("node24", offline)).rejects.toThrow("the registry is unreachable");
	});
});

/** A loopback port nothing listens on: one the kernel gave a server that has since closed. */
async function closedLoopbackPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as { port: number };
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}
