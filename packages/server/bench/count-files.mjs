// What the counting preloads (count-queries.mjs, count-async.mjs) share when run as a command:
// the arguments `<dir> <messages> [--top N]` and each instance's JSON file in <dir>.
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";

export function countFiles(args, tool) {
	const [from, messagesArg] = args;
	const messages = Number(messagesArg);
	const topIndex = args.indexOf("--top");
	const top = topIndex >= 0 ? Number(args[topIndex + 1]) : 25;
	if (!from || !(messages > 0)) {
		console.error(`usage: node ${tool} <dir> <messages> [--top N]`);
		process.exit(2);
	}
	const files = readdirSync(from)
		.filter((f) => f.endsWith(".json"))
		.map((file) => ({ file, data: JSON.parse(readFileSync(join(from, file), "utf8")) }));
	return { messages, top, files };
}

/** A side of floor.mjs (the platform's floor): its preloads count it as a server instance. */
export function floorRole() {
	return process.argv[1]?.endsWith("floor.mjs") && ["sender", "receiver"].includes(process.argv[2]);
}

/** The name of an instance's counts file: its data directory's, a floor side's, or its pid. */
export function instanceName() {
	if (process.env.AS2_DATA_DIR) return basename(process.env.AS2_DATA_DIR);
	return floorRole() ? `floor-${process.argv[2]}-${process.pid}` : `pid-${process.pid}`;
}
