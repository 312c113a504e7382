/**
 * A stopwatch of this process's CPU time (all its threads: crypto, zlib and GC included), in
 * milliseconds. "Fast" assertions use it rather than the wall clock: on a loaded machine a
 * process waits for a core, which stretches wall-clock time but not the work it does.
 */
export function cpuStopwatch(): () => number {
	const start = process.cpuUsage();
	return () => {
		const used = process.cpuUsage(start);
		return (used.user + used.system) / 1000;
	};
}
