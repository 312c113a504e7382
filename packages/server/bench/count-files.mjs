// What the counting preloads (count-queries.mjs, count-async.mjs) share when run as a command:
// the arguments `<dir> <messages> [--top N]` and each instance's JSON file in <dir>.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

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
