// JS heap bytes allocated per message on each side of `scenario.mjs` (issue #20): what the
// scavenger has to sweep after a message, counted rather than timed. V8's sampling heap
// profiler, told to keep the samples of objects already collected, gives bytes allocated by
// function (typed arrays' backing stores are outside the heap: `per-message-counts.mjs`).
// Sampled every PER_MESSAGE_HEAP_INTERVAL bytes (256): an estimate within a few per cent.
//
//   npm run build -w @as2kit/core && node packages/as2-core/bench/per-message-heap.mjs [keydir]
import { Session } from "node:inspector/promises";
import { scenario, withKeys } from "./scenario.mjs";

const MESSAGES = Number(process.env.PER_MESSAGE_COUNT ?? 1000);
const INTERVAL = Number(process.env.PER_MESSAGE_HEAP_INTERVAL ?? 256);
const TOP = 12;

const session = new Session();
session.connect();

await withKeys(process.argv[2], async (dir) => {
	const { send, receive, readReceipt } = scenario(dir);
	const sent = await send();
	const mdn = await receive(sent);
	const sides = {
		sender: async () => {
			await send();
			await readReceipt(sent, mdn);
		},
		receiver: () => receive(sent),
	};
	for (const [side, step] of Object.entries(sides)) {
		for (let i = 0; i < 200; i++) await step();
		await session.post("HeapProfiler.startSampling", {
			samplingInterval: INTERVAL,
			includeObjectsCollectedByMajorGC: true,
			includeObjectsCollectedByMinorGC: true,
		});
		for (let i = 0; i < MESSAGES; i++) await step();
		const { profile } = await session.post("HeapProfiler.stopSampling");
		const byFunction = new Map();
		let total = 0;
		const walk = (node) => {
			if (node.selfSize > 0) {
				const { functionName, url, lineNumber } = node.callFrame;
				const name = `${functionName || "(anonymous)"} ${url.split("/").pop()}:${lineNumber + 1}`;
				byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
				total += node.selfSize;
			}
			for (const child of node.children) walk(child);
		};
		walk(profile.head);
		console.log(`${side}: ${Math.round(total / MESSAGES)} bytes of JS heap allocated per message (${MESSAGES})`);
		for (const [name, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
			console.log(`  ${String(Math.round(bytes / MESSAGES)).padStart(7)}  ${name}`);
		}
	}
});
