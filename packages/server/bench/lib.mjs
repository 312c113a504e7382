// Shared pieces of the server benchmarks: a throwaway CA, real server processes (the built
// `npm start` entry), an HTTPS JSON client, and peak-RSS readings from /proc.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = fileURLToPath(new URL("../../..", import.meta.url));

export function createPki() {
	const dir = mkdtempSync(join(tmpdir(), "as2kit-bench-pki-"));
	const p = (n) => join(dir, n);
	const ossl = (args) => execFileSync("openssl", args, { stdio: "ignore" });
	ossl([
		"req",
		"-x509",
		"-newkey",
		"rsa:2048",
		"-nodes",
		"-keyout",
		p("ca.key"),
		"-out",
		p("ca.pem"),
		"-subj",
		"/CN=bench CA",
		"-days",
		"2",
		"-addext",
		"basicConstraints=critical,CA:TRUE",
		"-addext",
		"keyUsage=critical,keyCertSign",
	]);
	ossl([
		"req",
		"-newkey",
		"rsa:2048",
		"-nodes",
		"-keyout",
		p("server.key"),
		"-out",
		p("server.csr"),
		"-subj",
		"/CN=127.0.0.1",
	]);
	writeFileSync(p("server.ext"), "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
	ossl([
		"x509",
		"-req",
		"-in",
		p("server.csr"),
		"-CA",
		p("ca.pem"),
		"-CAkey",
		p("ca.key"),
		"-CAcreateserial",
		"-out",
		p("server.pem"),
		"-days",
		"2",
		"-extfile",
		p("server.ext"),
	]);
	return {
		dir,
		caPem: readFileSync(p("ca.pem"), "utf8"),
		certPath: p("server.pem"),
		keyPath: p("server.key"),
		cleanup: () => rmSync(dir, { recursive: true, force: true }),
	};
}

/**
 * Data directories are removed when the benchmark process ends, not when each server stops.
 * On ext4, creating a file costs up to a millisecond of kernel time while thousands of inodes
 * of its block group were deleted in the last minutes (the allocator skips recently deleted
 * inodes one by one): removing one run's directories would slow every file the next run creates.
 */
const leftovers = new Set();
process.once("exit", () => {
	for (const dir of leftovers) rmSync(dir, { recursive: true, force: true });
});

export async function freePort() {
	const server = createServer();
	await new Promise((r) => server.listen(0, "127.0.0.1", r));
	const { port } = server.address();
	await new Promise((r) => server.close(r));
	return port;
}

/** A server process with its own data directory; resolves once /health answers. */
export async function startServer(name, pki, env = {}) {
	const dir = mkdtempSync(join(tmpdir(), `as2kit-bench-${name}-`));
	const port = await freePort();
	const baseUrl = `https://127.0.0.1:${port}`;
	const profile = process.env.BENCH_CPU_PROFILE
		? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`]
		: [];
	// BENCH_NODE_ARGS: flags for the servers' node alone (V8's `--no-opt` is not allowed in NODE_OPTIONS).
	const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
	const child = spawn(process.execPath, [...nodeArgs, ...profile, join(REPO, "packages/server/dist/bin/start.js")], {
		env: {
			...process.env,
			PORT: String(port),
			HOST: "127.0.0.1",
			DATABASE_URL: join(dir, "as2.sqlite"),
			BLOB_DIR: join(dir, "blobs"),
			AS2_DATA_DIR: dir,
			TLS_CERT_FILE: pki.certPath,
			TLS_KEY_FILE: pki.keyPath,
			AS2_PUBLIC_URL: baseUrl,
			AS2_ALLOW_HTTP: "1",
			// Partners and MDN receipts are on loopback: the on-premise opt-in.
			AS2_ALLOW_PRIVATE_TARGETS: "1",
			AS2_DEFAULT_PLAN: "enterprise",
			LOG_LEVEL: "error",
			...env,
		},
		stdio: ["ignore", "ignore", "inherit"],
	});
	const call = client(baseUrl, pki.caPem);
	for (let i = 0; i < 400; i++) {
		const up = await call("GET", "/health").catch(() => null);
		if (up?.status === 200) break;
		await new Promise((r) => setTimeout(r, 50));
	}
	return {
		name,
		dir,
		baseUrl,
		child,
		call,
		peakRssMb: () => peakRssMb(child.pid),
		async stop() {
			const exited = new Promise((r) => child.once("exit", r));
			child.kill("SIGTERM");
			await exited;
			leftovers.add(dir);
		},
	};
}

/** VmHWM: the process's peak resident set, in MB. */
export function peakRssMb(pid) {
	const status = readFileSync(`/proc/${pid}/status`, "utf8");
	return Number(/VmHWM:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

/** CPU seconds (user + system) the process has used so far, from /proc (clock ticks of 10 ms). */
export function cpuSeconds(pid) {
	const { user, system } = cpuTimes(pid);
	return user + system;
}

/** A process's user and system CPU seconds: the system share is the kernel's (syscalls, the loopback's sends). */
export function cpuTimes(pid) {
	const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
	// Fields 14 and 15 of stat(5) (utime, stime); the split drops the first two.
	return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

export function client(baseUrl, caPem) {
	// Idle sockets are closed here after 4 s, before the server's 5 s keep-alive timeout closes
	// them: a request written on a socket the server is closing at that moment fails with
	// ECONNRESET (the gap between the benchmark's phases is often longer than 5 s).
	const agent = new Agent({ keepAlive: true, maxSockets: 64, ca: caPem, timeout: 4000 });
	return function call(method, path, { token, body, headers = {}, raw } = {}) {
		return new Promise((resolve, reject) => {
			const payload = raw ?? (body === undefined ? undefined : JSON.stringify(body));
			const req = request(
				new URL(path, baseUrl),
				{
					method,
					agent,
					headers: {
						...(token ? { authorization: `Bearer ${token}` } : {}),
						...(payload !== undefined && !raw ? { "content-type": "application/json" } : {}),
						...(payload !== undefined && typeof payload === "string"
							? { "content-length": Buffer.byteLength(payload) }
							: {}),
						...headers,
					},
				},
				(res) => {
					const chunks = [];
					res.on("data", (c) => chunks.push(c));
					res.on("end", () => {
						const text = Buffer.concat(chunks).toString("utf8");
						let json = null;
						try {
							json = JSON.parse(text);
						} catch {}
						resolve({ status: res.statusCode, json, text });
					});
				},
			);
			req.on("error", reject);
			if (payload && typeof payload !== "string" && typeof payload.pipe === "function") payload.pipe(req);
			else req.end(payload);
		});
	};
}

/** Registers a tenant with a live account key; returns what partners need to know of it. */
export async function setupTenant(server, name) {
	const reg = await server.call("POST", "/auth/register", {
		body: {
			name,
			email: `${name.toLowerCase()}@bench.example`,
			password: "long password",
			password_confirmation: "long password",
		},
	});
	const key = (
		await server.call("POST", "/v1/api-keys", {
			token: reg.json.token,
			body: { name: "bench", scope: "account", environment: "live", permissions: ["*"] },
		})
	).json.data.key;
	const tenant = (await server.call("GET", `/v1/tenants/${reg.json.tenant.id}`, { token: key })).json.data;
	const identity = (await server.call("GET", "/v1/certificates?type=identity", { token: key })).json.data[0]
		.certificate_pem;
	return { key, tenantId: tenant.id, as2Id: tenant.as2_id, identity };
}

export async function connect(on, onTenant, other, otherTenant, pki, settings = {}) {
	const partner = await on.call("POST", "/v1/partners", {
		token: onTenant.key,
		body: {
			name: other.name,
			as2_id: otherTenant.as2Id,
			url: `${other.baseUrl}/as2/receive`,
			tls: { ca_certificate: pki.caPem },
			...settings,
		},
	});
	await on.call("POST", `/v1/partners/${partner.json.data.id}/certificates`, {
		token: onTenant.key,
		body: { name: "c", usage: "both", certificate: otherTenant.identity },
	});
	return partner.json.data.id;
}

export function percentile(values, p) {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function summary(values) {
	const sorted = [...values].sort((a, b) => a - b);
	const median = sorted[Math.floor(sorted.length / 2)];
	return {
		median,
		min: sorted[0],
		max: sorted.at(-1),
		noisePct: median ? ((sorted.at(-1) - sorted[0]) / median) * 100 : 0,
	};
}

/**
 * Messages each benchmark sends before its measured phase, not counted (BENCH_WARMUP; 0 measures
 * from a cold start, as every bench did before stop 35). V8 compiles a server's hot code over its
 * first few thousand messages: at 10 KB a message, the CPU per message of the first 1,000 after a
 * start was 1.6–1.7 times the same processes' from the 4,000th on, where it levels off
 * (docs/performance.md, "Cold start and steady state (stop 35)"). A server's bill is its steady
 * state; the warm-up's own figures are printed beside it as the cold-start curve.
 */
export const WARMUP = Number(process.env.BENCH_WARMUP ?? 4500);
/** The cold-start curve's step: the warm-up's messages per window (BENCH_WARMUP_WINDOW). */
export const WARMUP_WINDOW = Number(process.env.BENCH_WARMUP_WINDOW ?? 1500);

/**
 * The warm-up: `count` messages in windows of WARMUP_WINDOW, each sent by `round(size)` (which
 * returns once they are all final); returns each window's delivered/s and CPU per message, ms,
 * of every pid in `pids` (the cold-start curve).
 */
export async function warmUp({ count = WARMUP, round, pids }) {
	const curve = [];
	for (let through = 0; through < count; ) {
		const size = Math.min(WARMUP_WINDOW, count - through);
		const before = pids.map(cpuSeconds);
		const started = performance.now();
		await round(size);
		through += size;
		curve.push({
			through,
			perSecond: (size / (performance.now() - started)) * 1000,
			cpuMs: pids.map((pid, i) => ((cpuSeconds(pid) - before[i]) * 1000) / size),
		});
	}
	return curve;
}

/** Calls `submit` `count` times, `concurrency` calls at a time (a closed loop of that many clients). */
export async function submitAll(count, concurrency, submit) {
	let next = 0;
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (next < count) await submit(next++);
		}),
	);
}

/** The cold-start curve as one line: `1500: 3.27 / 2.62 ms 283/s, 3000: …` (CPU a message, one figure a pid). */
export function describeCurve(curve) {
	return curve
		.map((w) => `${w.through}: ${w.cpuMs.map((x) => x.toFixed(2)).join(" / ")} ms ${w.perSecond.toFixed(0)}/s`)
		.join(", ");
}
