import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { expect, it } from "vitest";

const PACKAGE = resolve(import.meta.dirname, "..");
// drizzle-kit's package exports hide bin.cjs; its package.json leads there.
const DRIZZLE_KIT = join(dirname(createRequire(import.meta.url).resolve("drizzle-kit")), "bin.cjs");

it("the migrations are up to date with src/schema.ts (drizzle-kit finds nothing to generate)", () => {
	const out = mkdtempSync(join(tmpdir(), "as2kit-migrations-"));
	// drizzle-kit's TypeScript loader (tsx) keeps a cache in the temporary directory: one of its own.
	const kitTmp = mkdtempSync(join(tmpdir(), "as2kit-drizzle-kit-"));
	try {
		cpSync(join(PACKAGE, "migrations"), out, { recursive: true });
		const before = readdirSync(out).sort();
		const run = spawnSync(
			process.execPath,
			[DRIZZLE_KIT, "generate", "--dialect", "sqlite", "--schema", "./src/schema.ts", "--out", relative(PACKAGE, out)],
			{ cwd: PACKAGE, encoding: "utf8", env: { ...process.env, TMPDIR: kitTmp } },
		);
		const log = `${run.stdout}${run.stderr}`;
		expect(run.status, log).toBe(0);
		expect(readdirSync(out).sort(), log).toEqual(before);
		expect(log).toContain("No schema changes");
	} finally {
		rmSync(out, { recursive: true, force: true });
		rmSync(kitTmp, { recursive: true, force: true });
	}
});
