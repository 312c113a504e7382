/**
 * vitest setup file: with `AS2KIT_TEST_CPU_LOG=<file>`, appends one JSON line per test file:
 * the CPU time its worker process spent (import and tests), with that of the child processes
 * it waited for (OpenSSL, servers it started). Unlike durations, these figures hardly change
 * when other work loads the machine: `npm test` health is measured with them (issue #16).
 */
import { appendFileSync, readFileSync } from "node:fs";
import { afterAll, expect } from "vitest";

const log = process.env.AS2KIT_TEST_CPU_LOG;
if (log) {
	// The first file of a worker process counts the process's start too; a worker that runs
	// several files (projects with isolate: false) logs each later file's own share.
	const FIRST_DONE = Symbol.for("as2kit.test.cpu-log.first-file-done");
	const processState = globalThis as { [FIRST_DONE]?: boolean };
	const before = processState[FIRST_DONE] ? cpuTicks() : { own: 0, children: 0 };
	processState[FIRST_DONE] = true;
	const started = performance.now();
	afterAll(() => {
		const after = cpuTicks();
		const line = {
			file: expect.getState().testPath,
			store: process.env.AS2KIT_TEST_STORE ?? "sqlite",
			cpuMs: (after.own - before.own) * 10,
			childCpuMs: (after.children - before.children) * 10,
			wallMs: Math.round(performance.now() - started),
		};
		appendFileSync(log, `${JSON.stringify(line)}\n`);
	});
}

/** /proc/self/stat: utime, stime, cutime, cstime (fields 14-17) in clock ticks (100 per second). */
function cpuTicks(): { own: number; children: number } {
	const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
	const ticks = (i: number) => Number(fields[i - 3]);
	return { own: ticks(14) + ticks(15), children: ticks(16) + ticks(17) };
}
