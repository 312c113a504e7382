// (b) 1 GB sign + encrypt: build and parse throughput and peak RSS, each in its own process,
// side by side with `openssl cms -sign -stream | openssl cms -encrypt -stream` on the same file.
import { execFileSync, spawnSync } from "node:child_process";
import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fmt, summary } from "./stats.mjs";

const [dir, bytesText] = process.argv.slice(2);
const bytes = Number(bytesText);
const payload = join(dir, "payload.bin");
const fd = openSync(payload, "w");
const block = Buffer.alloc(1 << 20);
for (let i = 0; i < block.length; i++) block[i] = (i * 131 + (i >> 9)) & 0xff;
for (let written = 0; written < bytes; written += block.length)
	writeSync(fd, block, 0, Math.min(block.length, bytes - written));
closeSync(fd);

const worker = fileURLToPath(new URL("./large-worker.mjs", import.meta.url));
const mb = bytes / 1024 / 1024;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const results = { build: [], parse: [], openssl: [], buildRss: [], parseRss: [], opensslRss: [] };

for (let run = 0; run < RUNS; run++) {
	const build = JSON.parse(
		execFileSync(process.execPath, [worker, "build", dir, payload, join(dir, "as2.body"), join(dir, "as2.headers")], {
			encoding: "utf8",
		}),
	);
	results.build.push(mb / build.seconds);
	results.buildRss.push(build.maxRss);
	const parse = JSON.parse(
		execFileSync(process.execPath, [worker, "parse", dir, join(dir, "as2.body"), join(dir, "as2.headers")], {
			encoding: "utf8",
		}),
	);
	if (parse.bytes !== bytes) throw new Error(`parse returned ${parse.bytes} bytes`);
	results.parse.push(mb / parse.seconds);
	results.parseRss.push(parse.maxRss);

	const t0 = performance.now();
	const shell = `openssl cms -sign -binary -stream -in ${payload} -signer ${dir}/alice.crt -inkey ${dir}/alice.key -md sha256 -outform SMIME | openssl cms -encrypt -binary -stream -aes256 -outform DER -out ${dir}/openssl.der ${dir}/bob.crt`;
	const timed = spawnSync("/usr/bin/time", ["-f", "%M", "sh", "-c", shell], { encoding: "utf8" });
	if (timed.status !== 0) throw new Error(timed.stderr);
	results.openssl.push(mb / ((performance.now() - t0) / 1000));
	results.opensslRss.push(Number(timed.stderr.trim().split("\n").pop()) / 1024);
	rmSync(join(dir, "openssl.der"), { force: true });
}

const line = (label, values, rss) => {
	const s = summary(values);
	return `    ${label.padEnd(28)} median ${fmt(s.median)} MB/s (min ${fmt(s.min)}, max ${fmt(s.max)}, noise ${fmt(s.noisePct)}%), peak RSS ${fmt(Math.max(...rss), 0)} MB`;
};
const ref = summary(results.openssl).median;
console.log(`(b) ${fmt(mb / 1024, 2)} GB sign (sha256) + encrypt (aes256), ${RUNS} runs`);
console.log(
	`${line("as2kit build", results.build, results.buildRss)}  → ${fmt(summary(results.build).median / ref, 2)}× openssl`,
);
console.log(
	`${line("as2kit parse", results.parse, results.parseRss)}  → ${fmt(summary(results.parse).median / ref, 2)}× openssl`,
);
console.log(line("openssl sign | encrypt", results.openssl, results.opensslRss));
console.log(`    targets: build and parse ≥ 0.5× openssl, ≤ 150 MB peak RSS`);
