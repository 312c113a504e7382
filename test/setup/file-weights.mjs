/**
 * Writes test/setup/file-weights.json, the expected wall seconds of the test files that take
 * 5 s or more, by store and path, which test/setup/longest-first.ts sorts by when vitest has no
 * results cache (a fresh clone):
 *
 *     CI=true AS2KIT_TEST_CPU_LOG=/tmp/cpu-log.jsonl npx vitest run
 *     node test/setup/file-weights.mjs /tmp/cpu-log.jsonl
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
const MIN_SECONDS = 5;

const [log] = process.argv.slice(2);
if (!log) throw new Error("usage: node test/setup/file-weights.mjs <AS2KIT_TEST_CPU_LOG file>");
const weights = readFileSync(log, "utf8")
	.trim()
	.split("\n")
	.map((line) => JSON.parse(line))
	.map(({ file, store, wallMs }) => [`${store}:${fromRoot(file)}`, Math.round(wallMs / 1000)])
	.filter(([, seconds]) => seconds >= MIN_SECONDS)
	.sort((a, b) => b[1] - a[1]);
writeFileSync(
	resolve(ROOT, "test/setup/file-weights.json"),
	`${JSON.stringify(Object.fromEntries(weights), null, "\t")}\n`,
);
console.log(`${weights.length} files of ${MIN_SECONDS} s or more`);

/** The log's paths are absolute, from whichever checkout ran: the part from its top folders on. */
function fromRoot(file) {
	const match = /\/((?:packages|test|examples)\/.+)$/.exec(file.startsWith(ROOT) ? file.slice(ROOT.length) : file);
	if (!match) throw new Error(`not a test file of the repository: ${file}`);
	return match[1];
}
