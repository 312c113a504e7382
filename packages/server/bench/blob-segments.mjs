// What a small blob costs to put (issue #20, "Small blobs in segment files (stop 33)" in
// docs/performance.md): BENCH_BLOBS blobs of ~7 KB (a payload's size after the MIME of the
// throughput benchmark: 6,800 B) put through the built fs blob store, a file each (as before
// stop 33: `segments: false`) and appended to a segment (the default), in alternating order,
// BENCH_ROUNDS rounds. CPU (user + system) per blob, SHA-256 included as `put` computes it:
// creating a file is mostly the kernel's work, which a profile of the server does not show.
// Also reads every blob back once a round (`get`), the receiver's and the console's read path.
//
//   npm run build
//   export TMPDIR=$(mktemp -d /as2kit-bench-XXXX)
//   node packages/server/bench/blob-segments.mjs
//   rm -rf "$TMPDIR"
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFsBlobStore } from "../dist/index.js";

const BLOBS = Number(process.env.BENCH_BLOBS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const BYTES = Number(process.env.BENCH_BLOB_BYTES ?? 6800);
const payload = randomBytes(BYTES);

async function* body() {
	yield payload;
}

const ways = { "a file each": { segments: false }, segment: {} };
const results = Object.fromEntries(Object.keys(ways).map((name) => [name, { put: [], get: [] }]));
const root = mkdtempSync(join(tmpdir(), "as2kit-blob-segments-"));
const cpu = (started) => {
	const used = process.cpuUsage(started);
	return (used.user + used.system) / BLOBS;
};
try {
	for (let round = 0; round < ROUNDS; round++) {
		const names = Object.keys(ways);
		for (const name of round % 2 ? names.reverse() : names) {
			const dir = join(root, `${round}-${name.replaceAll(" ", "-")}`);
			const blobs = createFsBlobStore(dir, ways[name]);
			const keys = [];
			let started = process.cpuUsage();
			for (let n = 0; n < BLOBS; n++) keys.push((await blobs.put(`payloads/2026-11/${n}`, body())).key);
			results[name].put.push(cpu(started));
			started = process.cpuUsage();
			for (const key of keys) for await (const _ of await blobs.chunks(key));
			results[name].get.push(cpu(started));
			blobs.close();
			rmSync(dir, { recursive: true, force: true });
		}
	}
} finally {
	rmSync(root, { recursive: true, force: true });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const range = (xs) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
for (const [name, { put, get }] of Object.entries(results)) {
	console.log(
		`${name}: put ${median(put).toFixed(1)} µs of CPU a blob (median; ${range(put)}), get ${median(get).toFixed(1)} µs (${range(get)})`,
	);
}
const ratios = results.segment.put.map((x, i) => x / results["a file each"].put[i]);
console.log(
	`put, segment / a file each, round by round: median ${median(ratios).toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(", ")})`,
);
