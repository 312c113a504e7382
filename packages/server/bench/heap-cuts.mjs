// The functions "Heap per message (stop 32)" (docs/performance.md) changed, before and after,
// in one process: CPU per call (process.cpuUsage, the shapes interleaved, median and min–max of
// ROUNDS rounds) and JS heap allocated per call (V8's sampling heap profiler, collected objects
// included, one sample per 64 bytes). The shapes are copies of the code before and after, with
// the inputs of the throughput bench (an AS2 request's 16 header fields, the 10 KB EDI submitted
// as JSON, a MIC as we format it and the partner echoes it, a 10 KB payload blob read back by
// the send job through the built fs blob store: its web stream before, `chunks` after).
//
//   npm run build
//   TMPDIR=$(mktemp -d /as2kit-bench-XXXX) node packages/server/bench/heap-cuts.mjs [rounds]
import { mkdtempSync, rmSync } from "node:fs";
import { Session } from "node:inspector";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFsBlobStore } from "@as2kit/server";

const ROUNDS = Number(process.argv[2] ?? 7);
const N = 100_000;

// --- requestHeaderPairs (http/request-header-pairs.ts) -------------------------------------
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

function pairsBefore(raw) {
	const byName = new Map();
	const cookies = [];
	for (let i = 0; i + 1 < raw.length; i += 2) {
		const name = raw[i].toLowerCase();
		if (name.startsWith(":")) continue;
		const value = raw[i + 1].replace(EDGE_WHITESPACE, "");
		if (name === "set-cookie") cookies.push(value);
		else {
			const earlier = byName.get(name);
			byName.set(name, earlier === undefined ? value : `${earlier}, ${value}`);
		}
	}
	const pairs = [];
	for (const name of [...byName.keys(), ...(cookies.length > 0 ? ["set-cookie"] : [])].sort()) {
		if (name === "set-cookie") for (const cookie of cookies) pairs.push([name, cookie]);
		else pairs.push([name, byName.get(name)]);
	}
	return pairs;
}

const isEdgeWhitespace = (code) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
function trimEdges(value) {
	if (value.length === 0) return value;
	if (!isEdgeWhitespace(value.charCodeAt(0)) && !isEdgeWhitespace(value.charCodeAt(value.length - 1))) return value;
	return value.replace(EDGE_WHITESPACE, "");
}
function pairsAfter(raw) {
	const pairs = [];
	for (let i = 0; i + 1 < raw.length; i += 2) {
		const name = raw[i].toLowerCase();
		if (name.startsWith(":")) continue;
		const pair = [name, trimEdges(raw[i + 1])];
		let at = pairs.length;
		pairs.push(pair);
		for (; at > 0 && pairs[at - 1][0] > name; at--) pairs[at] = pairs[at - 1];
		pairs[at] = pair;
	}
	let kept = 0;
	for (const pair of pairs) {
		const last = kept > 0 ? pairs[kept - 1] : undefined;
		if (last && last[0] === pair[0] && pair[0] !== "set-cookie") last[1] = `${last[1]}, ${pair[1]}`;
		else pairs[kept++] = pair;
	}
	pairs.length = kept;
	return pairs;
}

// The fields of the throughput bench's AS2 request, as the receiver's Node sees them.
const rawHeaders = [
	"Host", "127.0.0.1:43117",
	"Message-ID", "<as2kit-1764314000000-4f0c2a9e@as2kit.test>",
	"Date", "Sat, 28 Nov 2026 07:40:00 GMT",
	"MIME-Version", "1.0",
	"AS2-Version", "1.2",
	"AS2-From", "ALPHA",
	"AS2-To", "BETA",
	"Subject", "EDI message",
	"From", "as2@alpha.test",
	"Disposition-Notification-To", "as2@alpha.test",
	"Disposition-Notification-Options", "signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256",
	"EDIINT-Features", "CEM, multiple-attachments, AS2-Reliability",
	"User-Agent", "as2kit",
	"Content-Type", 'application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"',
	"Content-Transfer-Encoding", "binary",
	"Content-Disposition", 'attachment; filename="smime.p7m"',
	"Content-Length", "3168",
	"Connection", "keep-alive",
]; // biome-ignore format: pairs on one line

// --- checkJsonShape (http/body-shape.ts) ----------------------------------------------------
const STRUCTURE = /["[\]{},]/g;
function closingQuote(text, from) {
	for (let quote = text.indexOf('"', from); quote >= 0; quote = text.indexOf('"', quote + 1)) {
		let k = quote - 1;
		while (k >= from && text.charCodeAt(k) === 0x5c) k--;
		if ((quote - 1 - k) % 2 === 0) return quote;
	}
	return text.length;
}
function shapeBefore(text) {
	let depth = 0;
	STRUCTURE.lastIndex = 0;
	for (let match = STRUCTURE.exec(text); match; match = STRUCTURE.exec(text)) {
		const code = text.charCodeAt(match.index);
		if (code === 0x22) STRUCTURE.lastIndex = closingQuote(text, match.index + 1) + 1;
		else if (code === 0x7b || code === 0x5b || code === 0x2c) depth++;
		else depth--;
	}
	return depth;
}
function shapeAfter(text) {
	let depth = 0;
	STRUCTURE.lastIndex = 0;
	while (STRUCTURE.test(text)) {
		const index = STRUCTURE.lastIndex - 1;
		const code = text.charCodeAt(index);
		if (code === 0x22) STRUCTURE.lastIndex = closingQuote(text, index + 1) + 1;
		else if (code === 0x7b || code === 0x5b || code === 0x2c) depth++;
		else depth--;
	}
	return depth;
}
const edi = `ISA*00*          *00*          *ZZ*ALPHA          *ZZ*BETA           *${"x".repeat(40)}~\n`.repeat(110);
const submitBody = JSON.stringify({
	partner_id: "prt_01JD8ZK9Q2W3E4R5T6Y7U8I9O0",
	payload: edi,
	content_type: "application/edi-x12",
	filename: "order.edi",
	subject: "EDI message",
	metadata: { order: "4711", batch: "7" },
});

// --- sameMic (service/messages/mdn-verdict.ts) ---------------------------------------------
function micBefore(a, b) {
	const norm = (mic) => {
		const [value, algorithm] = mic.split(",").map((s) => s.trim());
		return `${value}|${(algorithm ?? "").toLowerCase().replace(/[-_]/g, "")}`;
	};
	return norm(a) === norm(b);
}
function micAfter(a, b) {
	if (a === b) return true;
	return micBefore(a, b);
}
const mic = "Jq4kzEKJ0Ab3Dk1ySgrp3iDkTdDLHvJSgL2u9G2Zc6o=, sha-256";
// The partner's MIC arrives as its own string (parsed from the MDN), equal in content.
const echoed = () => `Jq4kzEKJ0Ab3Dk1ySgrp3iDkTdDLHvJSgL2u9G2Zc6o=, ${"sha-256"}`;
const received = echoed();

// --- openPayload (service/messages/build-outbound.ts): the payload blob read back -------------
const root = mkdtempSync(join(tmpdir(), "as2kit-heap-cuts-"));
process.on("exit", () => rmSync(root, { recursive: true, force: true }));
const blobs = createFsBlobStore(root);
const payloadKey = "tnt_1/2026-11/payload";
await blobs.put(
	payloadKey,
	(async function* () {
		yield new TextEncoder().encode(edi);
	})(),
);
async function readBefore() {
	let bytes = 0;
	for await (const chunk of await blobs.get(payloadKey)) bytes += chunk.byteLength;
	return bytes;
}
async function readAfter() {
	let bytes = 0;
	for await (const chunk of await blobs.chunks(payloadKey)) bytes += chunk.byteLength;
	return bytes;
}
if ((await readBefore()) !== (await readAfter())) throw new Error("openPayload: the reads disagree");

const shapes = [
	["requestHeaderPairs, before", () => pairsBefore(rawHeaders).length],
	["requestHeaderPairs, after", () => pairsAfter(rawHeaders).length],
	["checkJsonShape (10 KB submission), before", () => shapeBefore(submitBody)],
	["checkJsonShape (10 KB submission), after", () => shapeAfter(submitBody)],
	["sameMic ×2 (as judgeMdn + mdnData), before", () => micBefore(mic, received) + micBefore(mic, received)],
	["sameMic ×2 (as judgeMdn + mdnData), after", () => micAfter(mic, received) + micAfter(mic, received)],
	["payload blob read (10 KB file), before", readBefore],
	["payload blob read (10 KB file), after", readAfter],
];

for (const [name, before, after] of [
	["requestHeaderPairs", pairsBefore(rawHeaders), pairsAfter(rawHeaders)],
	["checkJsonShape", shapeBefore(submitBody), shapeAfter(submitBody)],
]) {
	if (JSON.stringify(before) !== JSON.stringify(after)) throw new Error(`${name}: the shapes disagree`);
}

let sink = 0;
const isAsync = (name) => name.startsWith("payload");
const perCall = async (name, fn, n) => {
	const start = process.cpuUsage();
	if (isAsync(name)) for (let i = 0; i < n; i++) sink += (await fn()) ? 1 : 0;
	else for (let i = 0; i < n; i++) sink += fn() ? 1 : 0;
	const used = process.cpuUsage(start);
	return ((used.user + used.system) * 1000) / n;
};
for (const [name, fn] of shapes) await perCall(name, fn, isAsync(name) ? 2_000 : 20_000);

const cpu = new Map(shapes.map(([name]) => [name, []]));
// A file read is a few syscalls: fewer of them, and fewer of the 10 KB scans, per round.
const n = (name) => (name.startsWith("checkJsonShape") ? N / 20 : isAsync(name) ? N / 50 : N);
for (let round = 0; round < ROUNDS; round++) {
	for (const [name, fn] of shapes) cpu.get(name).push(await perCall(name, fn, n(name)));
}

const session = new Session();
session.connect();
const post = (method, params) =>
	new Promise((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
const heap = new Map();
for (const [name, fn] of shapes) {
	await post("HeapProfiler.startSampling", {
		samplingInterval: 64,
		includeObjectsCollectedByMajorGC: true,
		includeObjectsCollectedByMinorGC: true,
	});
	const calls = n(name) / 10;
	for (let i = 0; i < calls; i++) sink += (isAsync(name) ? await fn() : fn()) ? 1 : 0;
	const { profile } = await post("HeapProfiler.stopSampling");
	let bytes = 0;
	const walk = (node) => {
		bytes += node.selfSize;
		for (const child of node.children) walk(child);
	};
	walk(profile.head);
	heap.set(name, bytes / calls);
}

console.log(`node ${process.version}; per call: CPU ns, median (min–max) of ${ROUNDS} rounds; JS heap bytes (sampled)`);
for (const [name, list] of cpu) {
	const sorted = [...list].sort((a, b) => a - b);
	const median = sorted[sorted.length >> 1];
	console.log(
		`${name.padEnd(46)} ${median.toFixed(0).padStart(7)} (${sorted[0].toFixed(0)}–${sorted.at(-1).toFixed(0)}) ns  ${heap.get(name).toFixed(0).padStart(6)} B`,
	);
}
if (sink < 0) console.log(sink);
