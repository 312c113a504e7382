/**
 * Scratch directories for test helpers whose callers keep using the files for a whole test
 * file (certificates made by OpenSSL, a TLS CA): made in the run's temporary directory and
 * removed after the test file that made them (test/setup/remove-scratch-dirs.ts), so no
 * caller has to remember to.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made = new Set<string>();

/** A new directory `<tmpdir>/<prefix>XXXXXX`, removed after the current test file. */
export function scratchDir(prefix: string): string {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	made.add(dir);
	return dir;
}

export function removeScratchDirs(): void {
	for (const dir of made) rmSync(dir, { recursive: true, force: true });
	made.clear();
}
