/**
 * scripts/build-inputs.mjs, which lets `npm test` skip the build when dist/ was built from the
 * sources as they are: run on a fixture repository (its second argument), as npm runs it.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeEach, describe, expect, it } from "vitest";
import { scratchDir } from "../setup/scratch-dirs.ts";

const SCRIPT = fileURLToPath(new URL("../../scripts/build-inputs.mjs", import.meta.url));
let root: string;

function run(
	command: "clear" | "stamp" | "check",
	env: Record<string, string> = {},
): { code: number | null; out: string } {
	const result = spawnSync(process.execPath, [SCRIPT, command, root], {
		encoding: "utf8",
		timeout: 30_000,
		env: { PATH: process.env.PATH ?? "", ...env },
	});
	return { code: result.status, out: result.stdout + result.stderr };
}

function write(path: string, text: string): void {
	mkdirSync(join(root, path, ".."), { recursive: true });
	writeFileSync(join(root, path), text);
}

beforeEach(() => {
	// Removed after this file by test/setup/remove-scratch-dirs.ts.
	root = scratchDir("as2kit-build-inputs-");
	write("package.json", '{"workspaces":["packages/*"]}');
	write("package-lock.json", "{}");
	for (const name of ["core", "server"]) {
		write(`packages/${name}/package.json`, '{"scripts":{"build":"tsup"}}');
		write(`packages/${name}/src/index.ts`, `export const name = "${name}";\n`);
		write(`packages/${name}/dist/index.js`, `export const name = "${name}";\n`);
	}
	// No build script: no dist/ to stamp, and its files are not inputs.
	write("packages/docs/package.json", "{}");
});

describe("scripts/build-inputs.mjs", () => {
	it("answers stale until a build stamped dist/, then fresh", () => {
		expect(run("check")).toMatchObject({ code: 1, out: expect.stringContaining("packages/core, packages/server") });
		expect(run("stamp").code).toBe(0);
		expect(run("check")).toMatchObject({ code: 0, out: expect.stringContaining("up to date") });
	});

	it("answers stale after any change of a package's files or of the root's lockfile", () => {
		for (const change of [
			() => appendFileSync(join(root, "packages/server/src/index.ts"), "// edited\n"),
			() => write("packages/core/src/added.ts", "export {};\n"),
			() => rmSync(join(root, "packages/core/src/index.ts")),
			() => write("packages/core/package.json", '{"scripts":{"build":"tsup --minify"}}'),
			() => appendFileSync(join(root, "package-lock.json"), "\n"),
		]) {
			run("stamp");
			change();
			expect(run("check").code).toBe(1);
		}
	});

	it("answers stale while a build runs or after it failed (cleared, not stamped), and for another CONSOLE_BASE", () => {
		run("stamp");
		expect(run("clear").code).toBe(0);
		expect(run("check")).toMatchObject({ code: 1, out: expect.stringContaining("packages/core, packages/server") });
		run("stamp");
		rmSync(join(root, "packages/server/dist"), { recursive: true });
		mkdirSync(join(root, "packages/server/dist"));
		expect(run("check")).toMatchObject({ code: 1, out: expect.stringContaining("(packages/server)") });
		run("stamp");
		expect(run("check", { CONSOLE_BASE: "/admin/" }).code).toBe(1);
	});

	it("ignores outputs and scratch: dist/, node_modules/, a package without a build", () => {
		run("stamp");
		write("packages/core/dist/chunk.js", "export {};\n");
		write("packages/core/node_modules/dep/index.js", "module.exports = 1;\n");
		write("packages/core/.tmp/scratch", "x");
		write("packages/docs/readme.md", "# docs\n");
		expect(run("check").code).toBe(0);
	});
});
