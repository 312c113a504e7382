/**
 * The CPU time a server process has spent, for bounds on the work a request costs. Unlike an
 * answer's wall time, it hardly moves with the machine's load: a parser that is superlinear
 * in its input burns seconds of CPU whatever the load, while an honest answer on a 2-core
 * machine at load 25 waits for a core for seconds without using one (parser-cost.test.ts
 * once read 1,528 ms of wall time for a 422 that costs a few milliseconds).
 */
import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

/** utime + stime of `pid` and all its threads (/proc/<pid>/stat fields 14 and 15), in ms. */
export function processCpuMs(pid: number): number {
	const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
	return (Number(fields[14 - 3]) + Number(fields[15 - 3])) * TICK_MS;
}

/** Runs `work` and returns its result with the CPU the server process spent meanwhile. */
export async function withServerCpu<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; cpuMs: number }> {
	const before = processCpuMs(pid);
	const result = await work();
	return { result, cpuMs: processCpuMs(pid) - before };
}
