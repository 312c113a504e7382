/**
 * The sum of the samples of `name` in a Prometheus text exposition whose labels include
 * `labels`; undefined when no sample matches (so a test tells "absent" from "zero").
 */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
	let sum: number | undefined;
	for (const line of text.split("\n")) {
		const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
		if (!match || match[1] !== name) continue;
		const found = new Map<string, string>();
		for (const label of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
			found.set(label[1]!, label[2]!);
		}
		if (Object.entries(labels).every(([key, value]) => found.get(key) === value)) {
			sum = (sum ?? 0) + Number(match[3]);
		}
	}
	return sum;
}

/** Every metric family `# TYPE` declares in a Prometheus text exposition. */
export function metricNames(text: string): Set<string> {
	return new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
}
