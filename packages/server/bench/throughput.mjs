// Issue #5 benchmark: two server processes on this machine, 10 KB EDI, sha256 + aes256 +
// compression + signed sync MDN, live over loopback HTTPS. Delivered messages per second
// (target ≥ 300/s) and p99 latency of POST /v1/messages under that load (target < 20 ms).
import Database from "better-sqlite3";
import { connect, createPki, percentile, setupTenant, startServer, summary } from "./lib.mjs";

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 3000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const segment = "LIN*1*BP*0123456789*VP*ABC-123~PO1*1*10*EA*9.95**BP*0123456789~PID*F****WIDGET, BLUE~\n";
const edi =
	`ISA*00*          *00*          *ZZ*ALPHA*ZZ*BETA~\n${segment.repeat(Math.ceil(10240 / segment.length))}`.slice(
		0,
		10240,
	);

async function run() {
	const pki = createPki();
	const a = await startServer("sender", pki);
	const b = await startServer("receiver", pki);
	try {
		const ta = await setupTenant(a, "Alpha");
		const tb = await setupTenant(b, "Beta");
		const partner = await connect(a, ta, b, tb, pki, {
			sign: true,
			encrypt: true,
			compress: true,
			sign_algorithm: "SHA256withRSA",
			encrypt_algorithm: "AES256_CBC",
			mdn_mode: "sync",
			mdn: { signed: true },
		});
		await connect(b, tb, a, ta, pki);
		const latencies = [];
		const started = performance.now();
		let next = 0;
		async function submitter() {
			while (next < MESSAGES) {
				next++;
				const t0 = performance.now();
				const r = await a.call("POST", "/v1/messages", {
					token: ta.key,
					body: { partner_id: partner, content_type: "application/edi-x12", payload: { content: edi } },
				});
				latencies.push(performance.now() - t0);
				if (r.status !== 202) throw new Error(`POST ${r.status} ${r.text}`);
			}
		}
		await Promise.all(Array.from({ length: CONCURRENCY }, submitter));
		const submitted = performance.now();
		const db = new Database(`${a.dir}/as2.sqlite`, { readonly: true });
		let delivered = 0;
		for (let i = 0; i < 6000; i++) {
			delivered = db.prepare("select count(*) n from messages where status = 'delivered'").get().n;
			const failed = db.prepare("select count(*) n from messages where status = 'failed'").get().n;
			if (failed) throw new Error(`${failed} messages failed`);
			if (delivered >= MESSAGES) break;
			await new Promise((r) => setTimeout(r, 50));
		}
		const done = performance.now();
		db.close();
		return {
			perSecond: (delivered / (done - started)) * 1000,
			postP99: percentile(latencies, 99),
			postP50: percentile(latencies, 50),
			submitPerSecond: (MESSAGES / (submitted - started)) * 1000,
			rss: [a.peakRssMb(), b.peakRssMb()],
		};
	} finally {
		await a.stop();
		await b.stop();
		pki.cleanup();
	}
}

const results = [];
for (let i = 0; i < RUNS; i++) {
	const r = await run();
	results.push(r);
	console.log(
		`    run ${i + 1}: ${r.perSecond.toFixed(0)} delivered/s, POST p50 ${r.postP50.toFixed(1)} ms p99 ${r.postP99.toFixed(1)} ms, submitted at ${r.submitPerSecond.toFixed(0)}/s, peak RSS ${r.rss.map((x) => x.toFixed(0)).join(" / ")} MB`,
	);
}
const rate = summary(results.map((r) => r.perSecond));
const p99 = summary(results.map((r) => r.postP99));
console.log(
	`(5a) throughput, two instances, ${MESSAGES} × 10 KB EDI, sha256 + aes256 + zlib + signed sync MDN over loopback HTTPS`,
);
console.log(
	`    delivered: median ${rate.median.toFixed(0)}/s (min ${rate.min.toFixed(0)}, max ${rate.max.toFixed(0)}, noise ${rate.noisePct.toFixed(1)}%)  target ≥ 300/s`,
);
console.log(
	`    POST /v1/messages p99: median ${p99.median.toFixed(1)} ms (min ${p99.min.toFixed(1)}, max ${p99.max.toFixed(1)})  target < 20 ms`,
);
