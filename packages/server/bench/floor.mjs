// The platform's floor per message (issue #20, stop 30): what the work no design on this stack
// avoids costs on this machine, set against the server's throughput bench (throughput.mjs).
//
// Two processes, a "sender" and a "receiver", each a bare Node HTTPS server (node:https, the
// bench's PKI from lib.mjs, TLS 1.2 minimum as the server), no database, no service, no Hono.
// This process is the load generator, as in throughput.mjs: BENCH_CONCURRENCY (16) clients post
// the same 10 KB EDI as JSON to the sender's `POST /v1/messages` over keep-alive HTTPS. The
// sender answers 202 at once, then, at most AS2_WORKER_CONCURRENCY (16) at a time as the
// server's job worker, builds the AS2 message with @as2kit/core with the options the server
// passes (build-outbound.ts: sha256, aes256-cbc, zlib before signing, signed sync MDN
// requested, the strict default switches), POSTs it with node's https.request on a keep-alive
// agent with the CA as a secure context (post-as2.ts), reads the MDN, parses and verifies it
// and matches its MIC (send.ts). The receiver reads the body, unpacks it (decrypt, decompress,
// verify; receive.ts, process-inbound.ts), reads the payload, completes the MIC, builds and
// signs the MDN (inbound-mdn.ts) and answers it.
//
// Variants (FLOOR_VARIANTS, comma-separated; each run measures each variant, in rotating order):
//   full    payload and wire capture files on both sides, as the server with capture on: the
//           sender's payload at submission and one capture (request + MDN) per exchange, the
//           receiver's payload and one capture per exchange; each file written whole to a
//           temporary name (O_EXCL, 0600), renamed into place and hashed (SHA-256), as the fs
//           blob store does a small blob, under a new directory of TMPDIR
//   nofiles the same without any file
//   noapi   files, but no API leg: the sender makes its messages itself (no load generator)
//   bare    neither files nor API leg: the AS2 exchange alone
// CPU per message of each process from /proc (user and system apart) over the messages of the
// run, from the first request to the last MDN verified, as throughput.mjs reads its phase 1,
// after the same warm-up in the same processes (BENCH_WARMUP; lib.mjs says why).
//
//   export TMPDIR=$(mktemp -d /as2kit-bench-XXXX)
//   FLOOR_RUNS=3 FLOOR_MESSAGES=1000 node packages/server/bench/floor.mjs
//   BENCH_CPU_PROFILE=dir FLOOR_RUNS=1 FLOOR_VARIANTS=full node packages/server/bench/floor.mjs
//   rm -rf "$TMPDIR"
//
// Needs the built @as2kit/core (npm run build). The AS2 identities are RSA-2048 certificates
// made with openssl, as the server's tenant identities.
import { execFileSync, fork } from "node:child_process";
import { hash, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer, Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createSecureContext } from "node:tls";
import {
	bufferedBytes,
	buildMdn,
	concatBytes,
	createMessageId,
	formatMic,
	importPrivateKey,
	MimeHeaders,
	matchMdn,
	pack,
	parseCertificates,
	parseMdn,
	readMdnRequest,
	stripMessageId,
	unpack,
} from "@as2kit/core";
import { client, cpuTimes, createPki, describeCurve, submitAll, summary, WARMUP, warmUp } from "./lib.mjs";

const role = process.argv[2];
if (role === "sender") await sender();
else if (role === "receiver") await receiver();
else await main();

// ---------------------------------------------------------------- shared by both sides

function env(name) {
	const value = process.env[name];
	if (value === undefined) throw new Error(`${name} is not set`);
	return value;
}

function identity(dir, name) {
	return {
		privateKey: importPrivateKey(readFileSync(join(dir, `${name}.key`), "latin1")),
		certificate: parseCertificates(readFileSync(join(dir, `${name}.crt`)))[0],
	};
}

/** The fs blob store's path for a small blob: written whole to a temporary name, renamed, hashed. */
function blobWriter(root) {
	const made = new Set();
	return function putFile(key, bytes) {
		const path = join(root, key);
		const directory = dirname(path);
		if (!made.has(directory)) {
			mkdirSync(directory, { recursive: true, mode: 0o700 });
			made.add(directory);
		}
		const temporary = `${path}.${randomUUID()}.partial`;
		writeFileSync(temporary, bytes, { flag: "wx", mode: 0o600 });
		renameSync(temporary, path);
		return hash("sha256", bytes);
	};
}

/** Every chunk of a Node stream in one array. */
async function readAll(stream) {
	const chunks = [];
	for await (const chunk of stream) chunks.push(chunk);
	return chunks.length === 1 ? chunks[0] : concatBytes(chunks);
}

/** A request's or an answer's fields as pairs, as the server reads them (rawHeaders). */
function pairs(raw) {
	const list = [];
	for (let i = 0; i < raw.length; i += 2) list.push([raw[i], raw[i + 1]]);
	return list;
}

function listen(server) {
	return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server.address().port)));
}

const month = () => new Date().toISOString().slice(0, 7);

// ---------------------------------------------------------------- the receiver

async function receiver() {
	const keys = env("FLOOR_KEYS");
	const bob = identity(keys, "bob");
	const alice = identity(keys, "alice");
	const putFile = process.env.FLOOR_FILES === "1" ? blobWriter(env("FLOOR_BLOBS")) : null;
	const tls = { cert: readFileSync(env("FLOOR_CERT")), key: readFileSync(env("FLOOR_KEY")), minVersion: "TLSv1.2" };
	const server = createServer(tls, (req, res) => {
		answer(req)
			.then(({ headers, body }) => {
				res.writeHead(200, headers);
				res.end(body);
			})
			.catch((error) => {
				console.error(error);
				res.writeHead(500).end();
			});
	});
	async function answer(req) {
		const headers = new MimeHeaders(pairs(req.rawHeaders));
		const body = await readAll(req);
		const at = new Date();
		const mdnRequest = readMdnRequest(headers);
		const messageId = stripMessageId(headers.get("message-id"));
		const unpacked = await unpack({
			headers,
			body,
			identities: [bob],
			partnerCertificates: [alice.certificate],
			at,
			requireSigned: false,
			requireEncrypted: false,
			maxDecompressedBytes: 100 * 1024 * 1024,
		});
		const payload = await readAll(unpacked.payload);
		if (putFile) putFile(`payloads/${month()}/${randomUUID()}`, payload);
		const report = await unpacked.complete();
		formatMic(report.mic);
		const mdn = buildMdn({
			original: { messageId, from: unpacked.from, to: unpacked.to, mdnRequest, mic: report.mic },
			disposition: { type: "processed" },
			sign: { privateKey: bob.privateKey, certificate: bob.certificate, chain: [] },
			reportingUa: "as2kit",
			date: at,
			messageIdDomain: "127.0.0.1",
		});
		// The server's answer: the MDN's fields as an object, Content-Length, one end().
		const out = {};
		for (const [name, value] of mdn.headers) out[name.toLowerCase()] = value;
		out["content-length"] = String(mdn.body.byteLength);
		// Wire capture: the request and the answer in one file (attempt-wire.ts).
		if (putFile) putFile(`wire/${month()}/${randomUUID()}`, concatBytes([body, mdn.body]));
		return { headers: out, body: mdn.body };
	}
	process.send({ port: await listen(server) });
	process.on("message", (m) => {
		if (m === "stop") server.close(() => process.exit(0)) && server.closeAllConnections();
	});
}

// ---------------------------------------------------------------- the sender

async function sender() {
	const keys = env("FLOOR_KEYS");
	const alice = identity(keys, "alice");
	const bob = identity(keys, "bob");
	const putFile = process.env.FLOOR_FILES === "1" ? blobWriter(env("FLOOR_BLOBS")) : null;
	const target = new URL(env("FLOOR_TARGET"));
	const concurrency = Number(process.env.AS2_WORKER_CONCURRENCY ?? 16);
	const agent = new HttpsAgent({
		keepAlive: true,
		timeout: 4000,
		maxSockets: 64,
		secureContext: createSecureContext({ ca: readFileSync(env("FLOOR_CA")), minVersion: "TLSv1.2" }),
	});
	const domain = "127.0.0.1";

	let expected = Infinity;
	let delivered = 0;
	// The exchange's sizes, to set beside the server's (3,168 B request, 3,596 B MDN at stop 28).
	let bytesOut = 0;
	let bytesIn = 0;
	let running = 0;
	const queue = [];
	const deliveredOne = () => {
		delivered++;
		if (delivered === expected)
			process.send({ delivered, bytesOut: bytesOut / delivered, bytesIn: bytesIn / delivered });
	};
	const enqueue = (payload) => {
		queue.push(payload);
		drain();
	};
	function drain() {
		while (running < concurrency && queue.length) {
			running++;
			send(queue.shift())
				.then(deliveredOne, (error) => {
					console.error(error);
					process.exit(1);
				})
				.finally(() => {
					running--;
					drain();
				});
		}
	}

	async function send(payload) {
		const at = new Date();
		const built = await pack({
			payload: {
				size: payload.byteLength,
				async *open() {
					yield payload;
				},
			},
			contentType: "application/edi-x12",
			from: "ALPHA",
			to: "BETA",
			messageId: stripMessageId(createMessageId(domain)),
			date: at,
			transferEncoding: "binary",
			headers: {},
			messageIdDomain: domain,
			sign: {
				privateKey: alice.privateKey,
				certificate: alice.certificate,
				chain: [],
				digest: "sha256",
				signedAttributes: true,
				algorithmProtection: true,
			},
			encrypt: { certificates: [bob.certificate], algorithm: "aes256", keyEncryption: "rsa" },
			compress: "before-sign",
			mdn: { mode: "sync", signed: ["sha256"] },
		});
		const body = bufferedBytes(built.body);
		const mic = await built.mic();
		formatMic(mic);
		(await built.alternativeMics()).map(formatMic);
		const headers = {};
		for (const [name, value] of built.headers) headers[name] = value;
		headers["Content-Length"] = String(body.byteLength);
		const answer = await new Promise((resolve, reject) => {
			const req = httpsRequest(target, { method: "POST", agent, headers }, (res) => {
				readAll(res).then((bytes) => resolve({ status: res.statusCode, headers: pairs(res.rawHeaders), body: bytes }));
			});
			req.on("error", reject);
			req.end(body);
		});
		if (answer.status !== 200) throw new Error(`the receiver answered ${answer.status}`);
		bytesOut += body.byteLength;
		bytesIn += answer.body.byteLength;
		if (putFile) putFile(`wire/${month()}/${randomUUID()}`, concatBytes([body, answer.body]));
		const mdn = await parseMdn({
			headers: answer.headers,
			body: answer.body,
			partnerCertificates: [bob.certificate],
			at: new Date(),
		});
		if (!matchMdn(mdn, { messageId: built.messageId, mic }).delivered) throw new Error("the MDN does not match");
	}

	const edi = new TextEncoder().encode(process.env.FLOOR_EDI);
	process.on("message", (m) => {
		if (m === "stop") {
			agent.destroy();
			if (api) api.close(() => process.exit(0)) && api.closeAllConnections();
			else process.exit(0);
		} else if (m.expect !== undefined) {
			// A new round (the warm-up's, then the measured one): counted from zero.
			expected = m.expect;
			delivered = 0;
			bytesOut = 0;
			bytesIn = 0;
			// Without the API leg the sender makes its messages itself, held in memory.
			for (let i = 0; i < (m.generate ?? 0); i++) enqueue(edi);
		}
	});

	let api = null;
	if (process.env.FLOOR_API === "1") {
		const tls = { cert: readFileSync(env("FLOOR_CERT")), key: readFileSync(env("FLOOR_KEY")), minVersion: "TLSv1.2" };
		api = createServer(tls, (req, res) => {
			readAll(req).then((raw) => {
				const json = JSON.parse(raw.toString("utf8"));
				if (!req.headers.authorization || typeof json.payload?.content !== "string") {
					res.writeHead(400).end();
					return;
				}
				const payload = new TextEncoder().encode(json.payload.content);
				if (putFile) putFile(`payloads/${month()}/${randomUUID()}`, payload);
				const answer = JSON.stringify({ data: { id: randomUUID(), status: "queued" } });
				res.writeHead(202, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) });
				res.end(answer);
				enqueue(payload);
			});
		});
	}
	process.send({ port: api ? await listen(api) : null });
}

// ---------------------------------------------------------------- the load generator

async function main() {
	const MESSAGES = Number(process.env.FLOOR_MESSAGES ?? 1000);
	const RUNS = Number(process.env.FLOOR_RUNS ?? 3);
	const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
	const VARIANTS = (process.env.FLOOR_VARIANTS ?? "full,nofiles,noapi,bare").split(",");
	const segment = "LIN*1*BP*0123456789*VP*ABC-123~PO1*1*10*EA*9.95**BP*0123456789~PID*F****WIDGET, BLUE~\n";
	const edi =
		`ISA*00*          *00*          *ZZ*ALPHA*ZZ*BETA~\n${segment.repeat(Math.ceil(10240 / segment.length))}`.slice(
			0,
			10240,
		);
	const pki = createPki();
	for (const name of ["alice", "bob"]) {
		execFileSync(
			"openssl",
			["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(pki.dir, `${name}.key`)].concat([
				"-out",
				join(pki.dir, `${name}.crt`),
				"-subj",
				`/CN=${name}`,
				"-days",
				"2",
			]),
			{ stdio: "ignore" },
		);
	}
	const caPath = join(pki.dir, "ca.pem");
	const blobs = mkdtempSync(join(tmpdir(), "as2kit-floor-"));
	const profile = process.env.BENCH_CPU_PROFILE
		? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`]
		: [];

	function start(name, extra) {
		const child = fork(import.meta.filename, [name], {
			execArgv: profile,
			env: {
				...process.env,
				FLOOR_KEYS: pki.dir,
				FLOOR_CERT: pki.certPath,
				FLOOR_KEY: pki.keyPath,
				FLOOR_CA: caPath,
				FLOOR_EDI: edi,
				...extra,
			},
			stdio: ["ignore", "inherit", "inherit", "ipc"],
		});
		const ready = new Promise((resolve, reject) => {
			child.once("message", resolve);
			child.once("exit", (code) => reject(new Error(`the ${name} exited with ${code}`)));
		});
		return { child, ready };
	}
	const stop = async ({ child }) => {
		const exited = new Promise((r) => child.once("exit", r));
		child.send("stop");
		await exited;
	};

	async function run(variant) {
		const files = variant === "full" || variant === "noapi" ? "1" : "0";
		const api = variant === "full" || variant === "nofiles" ? "1" : "0";
		const dir = mkdtempSync(join(blobs, `${variant}-`));
		const b = start("receiver", { FLOOR_FILES: files, FLOOR_BLOBS: join(dir, "receiver") });
		const { port: receiverPort } = await b.ready;
		const a = start("sender", {
			FLOOR_FILES: files,
			FLOOR_BLOBS: join(dir, "sender"),
			FLOOR_API: api,
			FLOOR_TARGET: `https://127.0.0.1:${receiverPort}/as2/receive`,
		});
		const { port: apiPort } = await a.ready;
		try {
			const pids = [a.child.pid, b.child.pid];
			const call = api === "1" ? client(`https://127.0.0.1:${apiPort}`, pki.caPem) : null;
			/** `count` messages through the sender; resolves with the exchange's sizes once the last MDN is verified. */
			async function round(count) {
				const done = new Promise((resolve) => a.child.once("message", resolve));
				if (!call) {
					a.child.send({ expect: count, generate: count });
					return done;
				}
				a.child.send({ expect: count });
				await submitAll(count, CONCURRENCY, async () => {
					const r = await call("POST", "/v1/messages", {
						token: "bench",
						body: { partner_id: "p", content_type: "application/edi-x12", payload: { content: edi } },
					});
					if (r.status !== 202) throw new Error(`POST ${r.status}`);
				});
				return done;
			}
			// Warmed up as the server is (lib.mjs, WARMUP), one round a window: the cold-start curve.
			const coldStart = await warmUp({ round, pids });
			const before = pids.map(cpuTimes);
			const started = performance.now();
			const { bytesOut, bytesIn } = await round(MESSAGES);
			const perSecond = (MESSAGES / (performance.now() - started)) * 1000;
			const after = pids.map(cpuTimes);
			const per = (side, field) => ((after[side][field] - before[side][field]) * 1000) / MESSAGES;
			return {
				perSecond,
				bytes: [bytesOut, bytesIn],
				user: [per(0, "user"), per(1, "user")],
				system: [per(0, "system"), per(1, "system")],
				coldStart,
			};
		} finally {
			await stop(a);
			await stop(b);
		}
	}

	const results = Object.fromEntries(VARIANTS.map((v) => [v, []]));
	const load = loadavg()[0];
	try {
		for (let i = 0; i < RUNS; i++) {
			// Rotated, so no variant always meets the same moment of a busy machine.
			const order = VARIANTS.map((_, k) => VARIANTS[(k + i) % VARIANTS.length]);
			for (const variant of order) {
				const r = await run(variant);
				results[variant].push(r);
				const total = [0, 1].map((s) => r.user[s] + r.system[s]);
				console.log(
					`    run ${i + 1} ${variant}: ${r.perSecond.toFixed(0)} delivered/s; CPU per message ${total.map((x) => x.toFixed(2)).join(" / ")} ms (sender / receiver; of it the kernel's ${r.system.map((x) => x.toFixed(2)).join(" / ")}); AS2 body ${r.bytes[0].toFixed(0)} B, MDN ${r.bytes[1].toFixed(0)} B (load ${loadavg()[0].toFixed(1)})`,
				);
				if (r.coldStart.length)
					console.log(
						`      cold start, CPU per message (sender / receiver) through message: ${describeCurve(r.coldStart)}`,
					);
			}
		}
	} finally {
		pki.cleanup();
		rmSync(blobs, { recursive: true, force: true });
	}
	const range = (values) => {
		const s = summary(values);
		return `${s.median.toFixed(2)} (${s.min.toFixed(2)}–${s.max.toFixed(2)})`;
	};
	console.log(
		`The platform's floor: ${MESSAGES} × 10 KB EDI after a warm-up of ${WARMUP}, sha256 + aes256 + zlib + signed sync MDN over loopback HTTPS, ${RUNS} runs (load average at start ${load.toFixed(1)}); CPU per message, ms, median (min–max)`,
	);
	console.log("| variant | sender | of it user / system | receiver | of it user / system | delivered/s |");
	console.log("|---|---:|---:|---:|---:|---:|");
	for (const [variant, set] of Object.entries(results)) {
		const side = (s) =>
			`${range(set.map((r) => r.user[s] + r.system[s]))} | ${range(set.map((r) => r.user[s]))} / ${range(set.map((r) => r.system[s]))}`;
		console.log(`| ${variant} | ${side(0)} | ${side(1)} | ${range(set.map((r) => r.perSecond)).split(" ")[0]} |`);
	}
}
