// Syscalls, socket writes and files per message on each side of the throughput benchmark
// (issue #20, "Writes and files per message" in docs/performance.md). The two instances of
// `throughput.mjs` (10 KB EDI, sha256 + aes256 + zlib + signed sync MDN, capture on unless
// BENCH_CAPTURE=off), warmed up,
// then `strace -f` attached to each for BENCH_MESSAGES messages submitted one at a time over
// BENCH_CONCURRENCY clients. Counts do not depend on the machine's load, unlike CPU time.
//
//   npm run build
//   AS2_ALLOW_PRIVATE_TARGETS=1 BENCH_MESSAGES=200 node packages/server/bench/syscalls.mjs
//
// Needs strace (and ptrace allowed on the instances). Sockets, database and other files are told apart by
// the path strace prints for each descriptor (`-yy`).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { connect, createPki, setupTenant, startServer } from "./lib.mjs";

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 200);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 30);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
// BENCH_STRACE_BYTES=65536 records the bytes of each call too (TLS record headers: `17 03 03`, then the length).
const BYTES = process.env.BENCH_STRACE_BYTES ?? "0";
// BENCH_PAYLOAD_BYTES: the EDI payload's size (10 KB, the throughput benchmark's, by default).
const PAYLOAD_BYTES = Number(process.env.BENCH_PAYLOAD_BYTES ?? 10240);
const segment = "LIN*1*BP*0123456789*VP*ABC-123~PO1*1*10*EA*9.95**BP*0123456789~PID*F****WIDGET, BLUE~\n";
const edi =
	`ISA*00*          *00*          *ZZ*ALPHA*ZZ*BETA~\n${segment.repeat(Math.ceil(PAYLOAD_BYTES / segment.length))}`.slice(
		0,
		PAYLOAD_BYTES,
	);

// BENCH_CAPTURE=off: wire capture off on both instances (what capture costs in calls and files).
const capture = { AS2_WIRE_CAPTURE: process.env.BENCH_CAPTURE === "off" ? "0" : "1" };
const pki = createPki();
const a = await startServer("sender", pki, capture);
const b = await startServer("receiver", pki, capture);
// BENCH_STRACE_DIR keeps the raw traces there (to read the calls themselves); by default they are removed.
const traces = process.env.BENCH_STRACE_DIR ?? mkdtempSync(join(tmpdir(), "as2kit-strace-"));
try {
	const ta = await setupTenant(a, "Alpha");
	const tb = await setupTenant(b, "Beta");
	const partner = await connect(a, ta, b, tb, pki, {
		sign: true,
		encrypt: true,
		// BENCH_COMPRESS=0: the body on the wire is then the 10 KB payload signed and encrypted, not ~4 KB.
		compress: process.env.BENCH_COMPRESS !== "0",
		sign_algorithm: "SHA256withRSA",
		encrypt_algorithm: "AES256_CBC",
		mdn_mode: "sync",
		mdn: { signed: true },
	});
	await connect(b, tb, a, ta, pki);
	const db = new Database(`${a.dir}/as2.sqlite`, { readonly: true });
	const submitAll = async (count) => {
		let next = 0;
		await Promise.all(
			Array.from({ length: CONCURRENCY }, async () => {
				while (next < count) {
					next++;
					const r = await a.call("POST", "/v1/messages", {
						token: ta.key,
						body: { partner_id: partner, content_type: "application/edi-x12", payload: { content: edi } },
					});
					if (r.status !== 202) throw new Error(`POST ${r.status} ${r.text}`);
				}
			}),
		);
	};
	const delivered = async (count) => {
		for (let i = 0; i < 12000; i++) {
			const n = db.prepare("select count(*) n from messages where status = 'delivered'").get().n;
			if (n >= count) return;
			await new Promise((r) => setTimeout(r, 25));
		}
		throw new Error("messages were not delivered in 5 minutes");
	};
	await submitAll(WARMUP);
	await delivered(WARMUP);

	const tracers = [a, b].map((server) => {
		const out = join(traces, `${server.name}.txt`);
		const child = spawn(
			"strace",
			["-f", "-qq", "-yy", ...(BYTES === "0" ? [] : ["-xx"]), "-s", BYTES, "-o", out, "-p", String(server.child.pid)],
			{
				stdio: ["ignore", "ignore", "inherit"],
			},
		);
		return { server, out, child, exited: new Promise((r) => child.once("exit", r)) };
	});
	// strace prints nothing when attached: a pause lets it reach every thread before the load starts.
	await new Promise((r) => setTimeout(r, 2000));
	await submitAll(MESSAGES);
	await delivered(WARMUP + MESSAGES);
	// The last MDN's bookkeeping (jobs, captures) may follow the delivered status by a moment.
	await new Promise((r) => setTimeout(r, 1000));
	for (const t of tracers) t.child.kill("SIGINT");
	await Promise.all(tracers.map((t) => t.exited));
	db.close();

	for (const t of tracers) {
		console.log(`\n${t.server.name}: per message (${MESSAGES} messages)`);
		print(count(readFileSync(t.out, "utf8")));
	}
} finally {
	await a.stop();
	await b.stop();
	pki.cleanup();
	if (!process.env.BENCH_STRACE_DIR) rmSync(traces, { recursive: true, force: true });
}

function count(text) {
	const calls = new Map();
	const add = (key, n = 1) => calls.set(key, (calls.get(key) ?? 0) + n);
	for (const line of text.split("\n")) {
		// `1234  writev(27<TCPv6:[...]>, [...], 3) = 10240` or a `<... writev resumed>` half.
		const m = /^\d+\s+(?:<\.\.\. )?(\w+)(?:\(| resumed>)/.exec(line);
		// A call split by another thread's is counted at its start, not at its `resumed` half.
		if (!m || line.includes(" resumed>")) continue;
		const name = m[1];
		add(name);
		const fd = /^\d+\s+\w+\((\d+)<([^>]*)>/.exec(line);
		if (fd && /^(write|writev|pwrite64|read|readv|pread64|sendmsg|recvfrom)$/.test(name))
			add(`${name} → ${kind(fd[2])}`);
		if (name === "openat" && line.includes("O_CREAT")) {
			add("files created (openat O_CREAT)");
			// Which blobs: the folder under BLOB_DIR (payloads, raw, wire, ...).
			const folder = /\/blobs\/([^/"]+)\//.exec(line);
			if (folder) add(`  of which blobs/${folder[1]}/`);
		}
	}
	return calls;
}

/** What a descriptor is, from the path `strace -yy` prints for it. */
function kind(path) {
	if (/^(TCP|UDP|UNIX)/.test(path)) return "socket";
	if (path.startsWith("/")) return path.includes("sqlite") ? "database file" : "file";
	if (path.includes("eventfd")) return "eventfd (thread pool wake-up)";
	if (path.startsWith("pipe")) return "pipe";
	return path;
}

function print(calls) {
	const rows = [...calls].sort((x, y) => y[1] - x[1]).filter(([, n]) => n / MESSAGES >= 0.05);
	for (const [name, n] of rows) console.log(`${(n / MESSAGES).toFixed(2).padStart(9)}  ${name}`);
}
