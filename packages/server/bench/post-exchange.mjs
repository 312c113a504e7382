// One outbound AS2 exchange in CPU time (issue #20, "The sender's HTTP work (stop 34)" in
// docs/performance.md): `postAs2` as the send job calls it (a trace, the lease's signal, the body
// through the capture's generator layers, keep-alive TLS with the partner's CA) against a bare
// `https.request` on a keep-alive agent (the platform's floor, bench/floor.mjs). The partner is a
// bare HTTPS server in a child process that reads the whole body and answers an MDN-sized body
// (3,596 B); only this process's CPU is counted. Variants run in alternating rounds, so the
// machine's load falls on all of them alike.
//
//   npx tsx packages/server/bench/post-exchange.mjs [--exchanges 3000] [--rounds 6] \
//     bare ../base/packages/server/src packages/server/src
//
// Each source directory's `service/transport/post-as2.ts` is loaded (two checkouts A/B in one
// process). Reported per exchange: CPU (user + system) median and min–max of the rounds (the
// first round of each variant dropped as warm-up), promises made (async_hooks), JS heap
// allocated (V8's sampling heap profiler, every 64 bytes).
import { createHook } from "node:async_hooks";
import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { Session } from "node:inspector/promises";
import { join, resolve } from "node:path";
import { createSecureContext } from "node:tls";
import { pathToFileURL } from "node:url";

if (process.argv[2] === "partner") {
	const tls = { cert: readFileSync(process.env.PX_CERT), key: readFileSync(process.env.PX_KEY) };
	const answer = Buffer.alloc(3596, 0x41);
	const server = createServer(tls, (req, res) => {
		req.on("data", () => {});
		req.on("end", () => {
			res.writeHead(200, {
				"content-type": 'multipart/signed; protocol="application/pkcs7-signature"; micalg=sha-256',
			});
			res.end(answer);
		});
	});
	server.listen(0, "127.0.0.1", () => process.send(server.address().port));
	process.on("message", () => server.close(() => process.exit(0)) && server.closeAllConnections());
} else {
	await main();
}

async function main() {
	const args = process.argv.slice(2);
	const option = (name, fallback) => {
		const at = args.indexOf(name);
		return at < 0 ? fallback : Number(args.splice(at, 2)[1]);
	};
	const EXCHANGES = option("--exchanges", 3000);
	const ROUNDS = option("--rounds", 6);
	const names = args.length ? args : ["bare", "packages/server/src"];
	const { createPki } = await import("./lib.mjs");
	const pki = createPki();
	const partner = fork(import.meta.filename, ["partner"], {
		env: { ...process.env, PX_CERT: pki.certPath, PX_KEY: pki.keyPath },
		stdio: ["ignore", "inherit", "inherit", "ipc"],
	});
	const port = await new Promise((r) => partner.once("message", r));
	const url = `https://127.0.0.1:${port}/as2/receive`;
	// An AS2 request's fields as the sender writes them (as2-core's pack; values of the bench's size).
	const headers = [
		["AS2-Version", "1.2"],
		["AS2-From", "ALPHA"],
		["AS2-To", "BETA"],
		["Message-ID", "<9b1e1f0c-6f0e-4a44-9a53-0d6c7a2f0b11@127.0.0.1>"],
		["Subject", "AS2 message"],
		["Date", new Date().toUTCString()],
		["MIME-Version", "1.0"],
		["Content-Type", 'application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"'],
		["Content-Disposition", 'attachment; filename="smime.p7m"'],
		["Content-Transfer-Encoding", "binary"],
		["Disposition-Notification-To", "mailto:as2@alpha.example"],
		[
			"Disposition-Notification-Options",
			"signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256",
		],
		["Recipient-Address", url],
		["User-Agent", "as2kit"],
	];
	const body = Buffer.alloc(3138, 0x30);
	const variants = [];
	for (const name of names) {
		if (name === "bare") {
			const agent = new HttpsAgent({
				keepAlive: true,
				timeout: 4000,
				maxSockets: 64,
				secureContext: createSecureContext({ ca: pki.caPem, minVersion: "TLSv1.2" }),
			});
			const target = new URL(url);
			variants.push({
				name,
				exchange: () =>
					new Promise((resolve, reject) => {
						const h = {};
						for (const [k, v] of headers) h[k] = v;
						h["Content-Length"] = String(body.byteLength);
						const req = httpsRequest(target, { method: "POST", agent, headers: h }, (res) => {
							const chunks = [];
							res.on("data", (c) => chunks.push(c));
							res.on("end", () => resolve(Buffer.concat(chunks)));
						});
						req.on("error", reject);
						req.end(body);
					}),
			});
			continue;
		}
		// `dir`, or `dir#folder` for another folder than service/transport; `!notrace`, `!nosignal` leave those out.
		const [path, folder = "transport"] = name.split("!")[0].split("#");
		const dir = resolve(path);
		const noTrace = name.includes("!notrace");
		const noSignal = name.includes("!nosignal");
		const { postAs2 } = await import(pathToFileURL(join(dir, `service/${folder}/post-as2.ts`)).href);
		const { createTargetGuard } = await import(pathToFileURL(join(dir, `service/${folder}/target-guard.ts`)).href);
		const { newTrace } = await import(pathToFileURL(join(dir, `service/${folder}/transport-trace.ts`)).href);
		const guard = createTargetGuard({ allowPrivateTargets: true });
		variants.push({
			name,
			exchange: async () => {
				// The send job's lease (a controller per job) and the body through the capture's layers.
				const lease = noSignal ? null : new AbortController();
				const result = await postAs2({
					signal: lease?.signal,
					url,
					guard,
					trace: noTrace ? undefined : newTrace(),
					headers,
					body: {
						size: body.byteLength,
						// As send.ts passes a buffered body (a checkout without `whole` uses `open`).
						whole: () => body,
						async *open() {
							yield* tee(
								(async function* () {
									yield body;
								})(),
							);
						},
					},
					idleTimeoutMs: 30_000,
					totalTimeoutMs: 30_000,
					tls: { caPem: pki.caPem, pinnedSha256: null },
					auth: null,
				});
				if (result.status !== 200) throw new Error(`status ${result.status}`);
				return result.body;
			},
		});
	}

	// 16 exchanges in flight, as the send job's worker runs them.
	const run = async (variant, count) => {
		let next = 0;
		await Promise.all(
			Array.from({ length: 16 }, async () => {
				while (next < count) {
					next++;
					await variant.exchange();
				}
			}),
		);
	};
	let promises = 0;
	const hook = createHook({
		init(_id, type) {
			if (type === "PROMISE") promises++;
		},
	});
	const session = new Session();
	session.connect();
	await session.post("HeapProfiler.enable");
	const results = new Map(variants.map((v) => [v.name, { cpu: [], promises: 0, heap: 0 }]));
	for (const v of variants) await run(v, 500); // warm-up: connections opened, code optimized
	for (let round = 0; round < ROUNDS; round++) {
		const order = round % 2 ? [...variants].reverse() : variants;
		for (const v of order) {
			const before = process.cpuUsage();
			await run(v, EXCHANGES);
			const used = process.cpuUsage(before);
			if (round > 0) results.get(v.name).cpu.push((used.user + used.system) / EXCHANGES);
		}
	}
	// Counts (one pass each, outside the timed rounds: the hook and the sampler cost CPU).
	for (const v of variants) {
		promises = 0;
		hook.enable();
		await run(v, 1000);
		hook.disable();
		results.get(v.name).promises = promises / 1000;
		await session.post("HeapProfiler.startSampling", {
			samplingInterval: 64,
			includeObjectsCollectedByMajorGC: true,
			includeObjectsCollectedByMinorGC: true,
		});
		await run(v, 1000);
		const { profile } = await session.post("HeapProfiler.stopSampling");
		const sum = (node) => node.selfSize + node.children.reduce((n, c) => n + sum(c), 0);
		results.get(v.name).heap = sum(profile.head) / 1000;
	}
	partner.send("stop");
	await new Promise((r) => partner.once("exit", r));
	pki.cleanup();
	const median = (xs) => {
		const s = [...xs].sort((a, b) => a - b);
		return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
	};
	console.log(
		`one exchange (3,138 B out, 3,596 B back, keep-alive TLS, 16 in flight), ${EXCHANGES} a round, ${ROUNDS - 1} rounds counted (load ${(await import("node:os")).loadavg()[0].toFixed(1)})`,
	);
	console.log("| variant | CPU µs, median (min–max) | promises | JS heap B |");
	console.log("|---|---:|---:|---:|");
	for (const [name, r] of results) {
		console.log(
			`| ${name} | ${median(r.cpu).toFixed(1)} (${Math.min(...r.cpu).toFixed(1)}–${Math.max(...r.cpu).toFixed(1)}) | ${r.promises.toFixed(1)} | ${r.heap.toFixed(0)} |`,
		);
	}
	// The last two variants, round by round (A/B of two checkouts).
	if (variants.length >= 2) {
		const [a, b] = [...results.values()].slice(-2);
		const ratios = a.cpu.map((x, i) => (b.cpu[i] / x).toFixed(2));
		console.log(`${names.at(-1)} ÷ ${names.at(-2)}, round by round: ${ratios.join(", ")}`);
	}
}

/** The capture's layer (attempt-wire.ts `teeInto`): each chunk awaited into a sink, then passed on. */
async function* tee(body) {
	for await (const chunk of body) {
		await Promise.resolve();
		yield chunk;
	}
}
