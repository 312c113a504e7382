// Issue #5 benchmark: a large payload (1 GB by default) sent through the REST API as a
// multipart upload to one instance, which signs, encrypts and sends it to another over
// loopback HTTPS with a signed sync MDN. Wall time and the peak RSS of both processes
// (target ≤ 200 MB each).
import { Readable } from "node:stream";
import Database from "better-sqlite3";
import { connect, createPki, setupTenant, startServer, summary } from "./lib.mjs";

const BYTES = Number(process.env.BENCH_BYTES ?? 1024 ** 3);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

function multipartBody(partnerId, bytes, boundary) {
	const head = Buffer.from(
		`--${boundary}\r\nContent-Disposition: form-data; name="partner_id"\r\n\r\n${partnerId}\r\n` +
			`--${boundary}\r\nContent-Disposition: form-data; name="content_type"\r\n\r\napplication/zip\r\n` +
			`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="large.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
	);
	const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
	const chunk = Buffer.alloc(1024 * 1024);
	for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31 + 7) & 0xff;
	let sent = 0;
	const stream = Readable.from(
		(function* () {
			yield head;
			while (sent < bytes) {
				const n = Math.min(chunk.length, bytes - sent);
				sent += n;
				yield n === chunk.length ? chunk : chunk.subarray(0, n);
			}
			yield tail;
		})(),
	);
	return { stream, length: head.length + bytes + tail.length };
}

async function run() {
	const pki = createPki();
	const a = await startServer("sender", pki, { AS2_HTTP_TIMEOUT_SECONDS: "1800" });
	const b = await startServer("receiver", pki);
	try {
		const ta = await setupTenant(a, "Alpha");
		const tb = await setupTenant(b, "Beta");
		const partner = await connect(a, ta, b, tb, pki, {
			sign: true,
			encrypt: true,
			sign_algorithm: "SHA256withRSA",
			encrypt_algorithm: "AES256_CBC",
			mdn_mode: "sync",
			connection: { timeout_seconds: 1800 },
		});
		await connect(b, tb, a, ta, pki);
		const boundary = "----as2kit-bench";
		const { stream, length } = multipartBody(partner, BYTES, boundary);
		const started = performance.now();
		const response = await a.call("POST", "/v1/messages", {
			token: ta.key,
			raw: stream,
			headers: { "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": String(length) },
		});
		if (response.status !== 202) throw new Error(`${response.status} ${response.text}`);
		const uploaded = performance.now();
		const db = new Database(`${a.dir}/as2.sqlite`, { readonly: true });
		let status = "";
		for (let i = 0; i < 36000; i++) {
			status = db.prepare("select status, error_code from messages").get()?.status;
			if (status === "delivered" || status === "failed") break;
			await new Promise((r) => setTimeout(r, 50));
		}
		const row = db.prepare("select status, error_code, error_message from messages").get();
		db.close();
		if (row.status !== "delivered")
			throw new Error(`the message ended ${row.status}: ${row.error_code} ${row.error_message}`);
		const done = performance.now();
		return {
			seconds: (done - started) / 1000,
			uploadSeconds: (uploaded - started) / 1000,
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
		`    run ${i + 1}: ${r.seconds.toFixed(1)} s end to end (upload ${r.uploadSeconds.toFixed(1)} s), peak RSS sender ${r.rss[0].toFixed(0)} MB, receiver ${r.rss[1].toFixed(0)} MB`,
	);
}
const wall = summary(results.map((r) => r.seconds));
const rssA = summary(results.map((r) => r.rss[0]));
const rssB = summary(results.map((r) => r.rss[1]));
console.log(
	`(5b) ${(BYTES / 1024 ** 2).toFixed(0)} MB through POST /v1/messages (multipart) to another instance, sha256 + aes256, signed sync MDN`,
);
console.log(
	`    wall time: median ${wall.median.toFixed(1)} s (min ${wall.min.toFixed(1)}, max ${wall.max.toFixed(1)}, noise ${wall.noisePct.toFixed(1)}%)`,
);
console.log(
	`    peak RSS: sender median ${rssA.median.toFixed(0)} MB (max ${rssA.max.toFixed(0)}), receiver median ${rssB.median.toFixed(0)} MB (max ${rssB.max.toFixed(0)})  target ≤ 200 MB each`,
);
