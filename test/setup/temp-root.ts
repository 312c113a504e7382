/**
 * vitest global setup: the run's temporary directory, and the guard that nothing is left in it.
 *
 * Every process of the run (test workers, the servers and OpenSSL they start, SQLite's temporary
 * files) writes its temporary files under one directory of this run: `TMPDIR` points there
 * before the first worker starts, and children inherit it. Test files and the code under test
 * must remove what they create there; at the end, anything left is named and FAILS the run
 * (issue #16: runs left dozens of directories holding private keys in /tmp). The directory is
 * removed either way, so a failing run does not leave private keys behind.
 *
 * Fixtures that the whole run shares (test identities made once, not per file) live next to it
 * under `AS2KIT_TEST_FIXTURES`, removed at the end too.
 *
 * Entries named `as2kit-*` that appear in the system's temporary directory itself come from a
 * process that ignored `TMPDIR`; under `CI` they fail the run as well. Elsewhere they are only
 * reported: other test runs on the same machine create such entries at the same time.
 *
 * vitest runs global setups once per project, in one process: the first one makes the
 * directory and the last teardown checks it.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

interface RunTemp {
	root: string;
	systemTmp: string;
	systemBefore: Set<string>;
	previousTmpdir: string | undefined;
	users: number;
}

const SHARED = Symbol.for("as2kit.test.run-temp");
const shared = globalThis as { [SHARED]?: RunTemp };

export default function setup(): () => void {
	let run = shared[SHARED];
	if (!run) {
		const systemTmp = tmpdir();
		const root = mkdtempSync(join(systemTmp, "as2kit-run-"));
		mkdirSync(join(root, "tmp"));
		mkdirSync(join(root, "fixtures"));
		run = {
			root,
			systemTmp,
			systemBefore: new Set(as2kitEntries(systemTmp)),
			previousTmpdir: process.env.TMPDIR,
			users: 0,
		};
		shared[SHARED] = run;
		process.env.TMPDIR = join(root, "tmp");
		process.env.AS2KIT_TEST_FIXTURES = join(root, "fixtures");
	}
	run.users += 1;
	return () => {
		run.users -= 1;
		if (run.users > 0) return;
		delete shared[SHARED];
		finish(run);
	};
}

function finish(run: RunTemp): void {
	const left = listTree(join(run.root, "tmp"));
	if (run.previousTmpdir === undefined) delete process.env.TMPDIR;
	else process.env.TMPDIR = run.previousTmpdir;
	delete process.env.AS2KIT_TEST_FIXTURES;
	rmSync(run.root, { recursive: true, force: true });

	const appeared = as2kitEntries(run.systemTmp).filter(
		(name) => !run.systemBefore.has(name) && !name.startsWith("as2kit-run-"),
	);
	const problems: string[] = [];
	if (left.length > 0)
		problems.push(
			`left in the run's temporary directory (${join(run.root, "tmp")}, now removed):\n${left.map((p) => `  ${p}`).join("\n")}`,
		);
	if (appeared.length > 0) {
		const where = `new in ${run.systemTmp}, written by a process that ignored TMPDIR (or by another run on this machine)`;
		if (process.env.CI) problems.push(`${where}:\n${appeared.map((p) => `  ${p}`).join("\n")}`);
		else console.warn(`[temp guard] ${where}:\n${appeared.map((p) => `  ${p}`).join("\n")}`);
	}
	if (problems.length === 0) return;
	// vitest only logs an error thrown by a teardown: the exit code is what fails `npm test`.
	process.exitCode = 1;
	throw new Error(
		`[temp guard] the test run left temporary files behind (remove them in afterAll/finally):\n${problems.join("\n")}`,
	);
}

function as2kitEntries(dir: string): string[] {
	return readdirSync(dir).filter((name) => name.startsWith("as2kit-"));
}

/** Paths under `dir`, relative to it: files, and directories two levels down at most. */
function listTree(dir: string): string[] {
	const out: string[] = [];
	for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
		const path = relative(dir, join(entry.parentPath, entry.name));
		if (path.split("/").length <= 2) out.push(entry.isDirectory() ? `${path}/` : path);
	}
	return out.sort();
}
