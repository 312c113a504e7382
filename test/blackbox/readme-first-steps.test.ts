/**
 * The README's "First steps" cannot rot (issue #18 §1): every shell block of the section runs,
 * in order, in one bash (`set -euo pipefail`) against the built server, as a user pastes them
 * into one terminal — except the first, `npm install && npm start`, which is this server. The
 * blocks run in a directory of their own holding what a clone has (`examples/`, and
 * `node_modules/` for `npx as2kit`, with npm offline), with only the server's address changed.
 * Nothing leaves loopback: curl talks to the server, `as2kit keygen` is local, and the test
 * key's partner is simulated.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, REPO, startBuiltServer } from "./built-server.ts";

const README_BASE = "http://127.0.0.1:8080";
const SCRIPT_TIMEOUT_MS = 120_000;

/** The ```sh blocks of the README section `heading`, in order. */
function shellBlocks(markdown: string, heading: string): string[] {
	const start = markdown.indexOf(`\n## ${heading}\n`);
	if (start < 0) throw new Error(`the README has no "## ${heading}" section`);
	const end = markdown.indexOf("\n## ", start + 1);
	const section = markdown.slice(start, end < 0 ? undefined : end);
	return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

function runBash(script: string, cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
	return new Promise((resolve) => {
		execFile(
			"bash",
			["-euo", "pipefail", "-c", script],
			{
				cwd,
				timeout: SCRIPT_TIMEOUT_MS,
				env: {
					PATH: process.env.PATH ?? "",
					HOME: cwd,
					// npx finds the workspace's as2kit; offline, it could not fetch anything if it did not.
					npm_config_offline: "true",
					npm_config_cache: join(cwd, ".npm"),
					npm_config_update_notifier: "false",
				},
			},
			(error, stdout, stderr) => {
				resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
			},
		);
	});
}

describe("the README's first steps", () => {
	const blocks = shellBlocks(readFileSync(join(REPO, "README.md"), "utf8"), "First steps");
	let server: BuiltServer;
	const cwd = mkdtempSync(join(tmpdir(), "as2kit-readme-"));
	beforeAll(async () => {
		server = await startBuiltServer();
		symlinkSync(join(REPO, "examples"), join(cwd, "examples"));
		symlinkSync(join(REPO, "node_modules"), join(cwd, "node_modules"));
	});
	afterAll(async () => {
		rmSync(cwd, { recursive: true, force: true });
		await server?.stop();
	});

	it("start the server with npm start, then talk to it at the README's address", () => {
		expect(blocks.length).toBeGreaterThanOrEqual(5);
		expect(blocks[0]!.trim()).toBe("npm install && npm start");
		expect(blocks.slice(1).some((block) => block.includes("npm start"))).toBe(false);
		expect(blocks[1]).toContain(`BASE=${README_BASE}`);
	});

	it("run end to end, copy-paste, with a test key and then a live one", async () => {
		const script = blocks
			.slice(1)
			.map((block) => block.replaceAll(README_BASE, server.base))
			.join("\n");
		const run = await runBash(script, cwd);
		expect(run.code, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(0);
		expect(run.stdout).toMatch(/msg_\d+ is delivered/);
		const payload = readFileSync(join(REPO, "examples/order.edi"));
		expect(run.stdout).toContain(`${createHash("sha256").update(payload).digest("base64")}, sha-256`);
		expect(existsSync(join(cwd, "partner-keys/acme.cert.pem"))).toBe(true);
		expect(readFileSync(join(cwd, "my-identity.pem"), "utf8")).toMatch(/^-----BEGIN CERTIFICATE-----/);
		server.assertAlive();
	});
});
