// Breaks a V8 CPU profile (`--cpu-prof`, e.g. the throughput bench run with BENCH_CPU_PROFILE=dir)
// into the categories of issue #20, by self time:
//
//   node packages/server/bench/profile-categories.mjs [--messages N] [--top K] FILE.cpuprofile...
//
// Each sample is charged to the first frame, from the leaf up, that says what the work is for:
// a frame in node:crypto is crypto whoever called it, but a frame in node:fs, node:events or a
// native syscall says nothing alone, so its caller decides (a file opened by the blob store is
// "payload files"). The bundles in dist/ keep esbuild's `// src/…` region comments, so a
// frame's line is mapped to the source file it came from without source maps. With
// --messages, each category is also given in ms per message (the profile's whole non-idle
// time, set-up included, over N messages: a slight over-estimate, same for before and after).
// Read a profile against the dist/ that made it: after a rebuild its lines point elsewhere.
import { readFileSync } from "node:fs";
import { PG_DRIVER, rules, sourceOf } from "./categories.mjs";

/** A system call writing a socket: whose socket is told by the frames above it. */
const SOCKET_WRITE = /^(writev|writeBuffer|writeUtf8String|writeLatin1String)$/;

/**
 * A socket write made for PostgreSQL (node-postgres' own, or the transaction wire's uncork):
 * the kernel's send and, on a busy machine, the backend woken on the sender's core, which the
 * profiler's wall-clock samples charge to the call (performance-storage.md, stop 31). Counted
 * apart from HTTP's writes, which the same native frames would otherwise join.
 */
function pgSocketWrite(node, parentOf, byId) {
	if (node.callFrame.url !== "" || !SOCKET_WRITE.test(node.callFrame.functionName)) return false;
	for (let n = byId.get(parentOf.get(node.id)); n; n = byId.get(parentOf.get(n.id))) {
		const source = sourceOf(n.callFrame.url, n.callFrame.lineNumber);
		if (PG_DRIVER.test(source) || /^storage-pg\/src\/connection\.ts/.test(source)) return true;
		// HTTP's writes go through node:http or TLS first; a frame of the server's says whose it is.
		if (/^node:(_http|http|https|_tls|tls)|server\/src\//.test(source)) return false;
	}
	return false;
}

function categorize(node, parentOf, byId) {
	if (pgSocketWrite(node, parentOf, byId)) return "pg driver: socket writes";
	for (let n = node; n; n = byId.get(parentOf.get(n.id))) {
		const { functionName, url, lineNumber } = n.callFrame;
		const source = sourceOf(url, lineNumber);
		for (const [name, test] of rules) if (test(functionName, source)) return name;
	}
	return "other (event loop, streams, promises)";
}

const args = process.argv.slice(2);
const option = (name) => {
	const at = args.indexOf(name);
	return at < 0 ? undefined : args.splice(at, 2)[1];
};
const messages = Number(option("--messages") ?? 0);
const top = Number(option("--top") ?? 0);
const totals = new Map();
const leaves = new Map();
for (const file of args) {
	const profile = JSON.parse(readFileSync(file, "utf8"));
	const byId = new Map(profile.nodes.map((n) => [n.id, n]));
	const parentOf = new Map();
	for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);
	const memo = new Map();
	profile.samples.forEach((id, i) => {
		const micros = profile.timeDeltas[i] ?? 0;
		if (!memo.has(id)) memo.set(id, categorize(byId.get(id), parentOf, byId));
		const category = memo.get(id);
		totals.set(category, (totals.get(category) ?? 0) + micros);
		const { functionName, url, lineNumber } = byId.get(id).callFrame;
		const leaf = `${category} | ${functionName || "(anonymous)"} ${sourceOf(url, lineNumber)}`;
		leaves.set(leaf, (leaves.get(leaf) ?? 0) + micros);
	});
}
totals.delete("idle");
const busy = [...totals.values()].reduce((a, b) => a + b, 0);
console.log(`| category | share of CPU | ms |${messages ? " ms per message |" : ""}`);
console.log(`|---|---:|---:|${messages ? "---:|" : ""}`);
for (const [name, micros] of [...totals].sort((a, b) => b[1] - a[1])) {
	const perMessage = messages ? ` ${(micros / 1000 / messages).toFixed(3)} |` : "";
	console.log(`| ${name} | ${((micros / busy) * 100).toFixed(1)} % | ${(micros / 1000).toFixed(0)} |${perMessage}`);
}
console.log(
	`| total (not idle) | 100 % | ${(busy / 1000).toFixed(0)} |${messages ? ` ${(busy / 1000 / messages).toFixed(3)} |` : ""}`,
);
if (top) {
	console.log("\nheaviest leaves (category | function source: ms)");
	for (const [leaf, micros] of [...leaves].sort((a, b) => b[1] - a[1]).slice(0, top)) {
		if (!leaf.startsWith("idle")) console.log(`${(micros / 1000).toFixed(0).padStart(7)}  ${leaf}`);
	}
}
