// (a) 10 KB EDI, sha256 + aes256 + zlib, sync signed MDN built and verified: round trips per
// second on one core, against the ceiling of three RSA-2048 private-key operations.
import { sign as rsaSign } from "node:crypto";
import { scenario } from "./scenario.mjs";
import { fmt, summary } from "./stats.mjs";

const { alice, send, receive, readReceipt } = scenario(process.argv[2]);

async function roundTrip() {
	const sent = await send();
	await readReceipt(sent, await receive(sent));
}

function rsaCeiling(ms) {
	const data = new Uint8Array(32);
	let ops = 0;
	const end = performance.now() + ms;
	while (performance.now() < end) {
		rsaSign("sha256", data, alice.privateKey);
		ops++;
	}
	return ops / (ms / 1000) / 3;
}

for (let i = 0; i < 200; i++) await roundTrip();
const rates = [];
const ceilings = [];
for (let run = 0; run < 5; run++) {
	ceilings.push(rsaCeiling(1000));
	const n = 1500;
	const t0 = performance.now();
	for (let i = 0; i < n; i++) await roundTrip();
	rates.push(n / ((performance.now() - t0) / 1000));
}
const r = summary(rates);
const c = summary(ceilings);
console.log(`(a) small round trip (10 KB, sha256 + aes256 + zlib, signed MDN built and verified), one core`);
console.log(
	`    as2kit:          median ${fmt(r.median, 0)}/s  (min ${fmt(r.min, 0)}, max ${fmt(r.max, 0)}, noise ${fmt(r.noisePct)}%)  target ≥ 600/s`,
);
console.log(
	`    RSA-2048 ceiling: median ${fmt(c.median, 0)}/s (three private-key operations per round trip; noise ${fmt(c.noisePct)}%)`,
);
console.log(`    ratio to ceiling: ${fmt(r.median / c.median, 2)}`);
