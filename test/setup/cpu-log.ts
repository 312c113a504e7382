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
	const started = performance.now();
	afterAll(() => {
		// /proc/self/stat: utime, stime, cutime, cstime (fields 14-17) in clock ticks (100 per second).
		const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
		const ticks = (i: number) => Number(fields[i - 3]);
		const line = {
			file: expect.getState().testPath,
			store: process.env.AS2KIT_TEST_STORE ?? "sqlite",
			cpuMs: (ticks(14) + ticks(15)) * 10,
			childCpuMs: (ticks(16) + ticks(17)) * 10,
			wallMs: Math.round(performance.now() - started),
		};
		appendFileSync(log, `${JSON.stringify(line)}\n`);
	});
}
