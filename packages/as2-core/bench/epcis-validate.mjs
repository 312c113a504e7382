// `node bench/run.mjs epcis`: EPCIS validation throughput (all three rules) on generated
// documents of 10 MB and 50 MB, EPCIS 2.0 and 1.2, streamed from disk, each run in a fresh
// process. Prints events/s (median of several runs, min–max as noise) and peak RSS; bounded
// memory shows as the same peak at 10 MB and 50 MB. `xmllint --stream --schema` on the same
// file is the reference (schema only).
import { execFileSync, spawnSync } from "node:child_process";
import { createWriteStream, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateEpcisDocument } from "./epcis-generate.mjs";
import { fmt, summary } from "./stats.mjs";

const [dir] = process.argv.slice(2);
const worker = fileURLToPath(new URL("./epcis-worker.mjs", import.meta.url));
const xsd = fileURLToPath(new URL("../test/fixtures/epcis-xsd/", import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SIZES = (process.env.BENCH_EPCIS_MB ?? "10,50").split(",").map(Number);
const hasXmllint = spawnSync("sh", ["-c", "command -v xmllint"]).status === 0;

async function writeDocument(version, mb) {
	const file = join(dir, `epcis-${version}-${mb}mb.xml`);
	const out = createWriteStream(file);
	const stats = { events: 0, bytes: 0 };
	for await (const chunk of generateEpcisDocument(version, mb * 1024 * 1024, stats)) {
		if (!out.write(chunk)) await new Promise((resolve) => out.once("drain", resolve));
	}
	await new Promise((resolve) => out.end(resolve));
	return { file, events: stats.events };
}

console.log(`EPCIS validation (schema_compliance + business_rules + dscsa_compliance), ${RUNS} runs each`);
for (const version of ["2.0", "1.2"]) {
	for (const mb of SIZES) {
		const { file, events } = await writeDocument(version, mb);
		const rates = [];
		const mbps = [];
		const rss = [];
		let verdict = "";
		for (let run = 0; run < RUNS; run++) {
			const r = JSON.parse(execFileSync(process.execPath, [worker, file], { encoding: "utf8" }));
			if (r.events !== events) throw new Error(`read ${r.events} events, generated ${events}`);
			rates.push(r.events / r.seconds);
			mbps.push(statSync(file).size / 1024 / 1024 / r.seconds);
			rss.push(r.maxRss);
			verdict = `schema ${r.schema}, business ${r.business}`;
		}
		const s = summary(rates);
		let reference = "";
		if (hasXmllint) {
			const schema = join(xsd, version, version === "2.0" ? "EPCglobal-epcis-2_0.xsd" : "EPCglobal-epcis-1_2.xsd");
			const t0 = performance.now();
			const timed = spawnSync(
				"/usr/bin/time",
				["-f", "%M", "xmllint", "--stream", "--noout", "--schema", schema, file],
				{ encoding: "utf8" },
			);
			const seconds = (performance.now() - t0) / 1000;
			const peak = Number(timed.stderr.trim().split("\n").pop()) / 1024;
			reference = `\n      xmllint --stream --schema: ${fmt(events / seconds, 0)} events/s, peak RSS ${fmt(peak, 0)} MB`;
		}
		console.log(
			`  EPCIS ${version}, ${mb} MB, ${events} events (${verdict})\n` +
				`      as2kit: median ${fmt(s.median, 0)} events/s (min ${fmt(s.min, 0)}, max ${fmt(s.max, 0)}, noise ${fmt(s.noisePct)}%), ` +
				`${fmt(summary(mbps).median)} MB/s, peak RSS ${fmt(Math.max(...rss), 0)} MB${reference}`,
		);
		rmSync(file, { force: true });
	}
}
console.log("    bounded memory: peak RSS must not grow from 10 MB to 50 MB");
