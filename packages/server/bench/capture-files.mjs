// What the files of a wire capture cost (issue #20, "Wire capture per message (stop 28)" in
// docs/performance.md): one exchange of the throughput benchmark (a 3,168-byte request in the
// three chunks it is sent in, a 3,596-byte sync MDN) captured through the built fs blob store as
// two blobs (request, answer: as before stop 28) and as one (both, the answer after the request),
// in alternating order, BENCH_ROUNDS rounds of BENCH_EXCHANGES. CPU (user + system) per exchange:
// creating a file is mostly the kernel's work, which a profile of the server does not show.
//
//   npm run build
//   export TMPDIR=$(mktemp -d /as2kit-bench-XXXX)
//   node packages/server/bench/capture-files.mjs
//   rm -rf "$TMPDIR"
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFsBlobStore } from "../dist/index.js";

const EXCHANGES = Number(process.env.BENCH_EXCHANGES ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const request = [416, 2736, 16].map((n, i) => new Uint8Array(n).fill(i + 1));
const answer = new Uint8Array(3596).fill(9);

async function* chunks(list) {
	yield* list;
}

const ways = {
	"two blobs": async (blobs, n) => {
		await blobs.put(`wire/${n}-request`, chunks(request));
		await blobs.put(`wire/${n}-response`, chunks([answer]));
	},
	"one blob": async (blobs, n) => {
		await blobs.put(`wire/${n}-request`, chunks([...request, answer]));
	},
};

const results = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
const root = mkdtempSync(join(tmpdir(), "as2kit-capture-files-"));
try {
	for (let round = 0; round < ROUNDS; round++) {
		const names = Object.keys(ways);
		for (const name of round % 2 ? names.reverse() : names) {
			const dir = join(root, `${round}-${name.replace(" ", "-")}`);
			const blobs = createFsBlobStore(dir);
			const started = process.cpuUsage();
			for (let n = 0; n < EXCHANGES; n++) await ways[name](blobs, n);
			const used = process.cpuUsage(started);
			results[name].push((used.user + used.system) / EXCHANGES);
			rmSync(dir, { recursive: true, force: true });
		}
	}
} finally {
	rmSync(root, { recursive: true, force: true });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
for (const [name, perRound] of Object.entries(results)) {
	console.log(
		`${name}: ${median(perRound).toFixed(1)} µs of CPU per exchange (median; rounds ${perRound.map((x) => x.toFixed(0)).join(", ")})`,
	);
}
const ratios = results["one blob"].map((x, i) => x / results["two blobs"][i]);
console.log(
	`one blob / two blobs, round by round: median ${median(ratios).toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(", ")})`,
);
