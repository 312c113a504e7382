// The API leg of a message alone (issue #20): `POST /v1/messages` with the throughput bench's
// 10 KB EDI as JSON, through the real app (createApp of a build's dist, on @hono/node-server's
// listener as the server serves it, plain HTTP on loopback), in front of a service that answers
// at once: authentication, the rate limit's admission and the submission return fixed values,
// so what is measured is the HTTP layer, the middleware and the route (parsing, validation, the
// payload's bytes, the 202), not the store. A client process posts over keep-alive with 16
// requests in flight; the server's process reports its CPU, the JS heap it allocated (V8's
// sampling heap profiler, collected objects included) and the promises it made, per request.
//
//   npm run build
//   node packages/server/bench/submit-request.mjs [--requests 20000] [--rounds 5] [--top 0] \
//     [distA [distB]]        # default: this checkout's packages/server/dist; "floor": bare node:http
//
// With two builds, rounds alternate A then B, each in a new server process: read the ratio pair
// by pair. CPU per request moves with the machine's load; the heap bytes and promises do not.
import { spawn } from "node:child_process";
import { Agent, request as httpRequest } from "node:http";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

const segment = "LIN*1*BP*0123456789*VP*ABC-123~PO1*1*10*EA*9.95**BP*0123456789~PID*F****WIDGET, BLUE~\n";
const edi =
	`ISA*00*          *00*          *ZZ*ALPHA*ZZ*BETA~\n${segment.repeat(Math.ceil(10240 / segment.length))}`.slice(
		0,
		10240,
	);

const args = process.argv.slice(2);
const option = (name, fallback) => {
	const at = args.indexOf(name);
	if (at < 0) return fallback;
	const value = args[at + 1];
	args.splice(at, 2);
	return Number(value);
};

if (args[0] === "--serve") await serve(args[1]);
else await orchestrate();

async function orchestrate() {
	const requests = option("--requests", 20000);
	const rounds = option("--rounds", 5);
	const top = option("--top", 0);
	const dists =
		args.length > 0
			? args.map((dist) => (dist === "floor" ? dist : resolve(dist)))
			: [join(import.meta.dirname, "..", "dist")];
	const results = dists.map(() => []);
	for (let round = 0; round < rounds; round++) {
		for (const [i, dist] of dists.entries()) {
			const result = await measure(dist, requests, top);
			results[i].push(result);
			console.log(
				`round ${round + 1} ${label(i)}: ${result.cpuUs.toFixed(1)} us CPU (system ${result.systemUs.toFixed(1)}), ${Math.round(result.heapBytes)} B heap, ${result.promises.toFixed(1)} promises per request`,
			);
			for (const line of result.sites ?? []) console.log(`    ${line}`);
		}
	}
	for (const [i, dist] of dists.entries()) {
		const cpu = results[i].map((r) => r.cpuUs);
		console.log(
			`${label(i)} ${dist}: CPU per request ${stats(cpu)} us; heap ${stats(
				results[i].map((r) => r.heapBytes),
				0,
			)} B`,
		);
	}
	if (dists.length === 2) {
		const ratios = results[1].map((r, k) => r.cpuUs / results[0][k].cpuUs);
		console.log(`B / A pair by pair: ${ratios.map((r) => r.toFixed(3)).join(", ")}; median ${stats(ratios, 3)}`);
	}
}

async function appOf(dist, service, logger) {
	const { createApp } = await import(join(dist, "index.js"));
	return createApp({ service, logger });
}

/**
 * "floor" instead of a build: a bare node:http listener doing the same work (the body read and
 * parsed as JSON, the payload's bytes, the service's three calls, the same 202 with its five
 * header fields), to read what Hono, the middleware and the route add. The 202's data is the
 * server's own view of the message (this checkout's build), so both answers are alike.
 */
function floorListener(service, { queuedView }) {
	return (req, res) => {
		const chunks = [];
		req.on("data", (chunk) => chunks.push(chunk));
		req.on("end", async () => {
			const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
			const principal = await service.authenticate(req.headers.authorization.slice(7), null);
			const admission = await service.admit(`account:${principal.accountId}`, principal.plan);
			const bytes = Buffer.from(body.payload.content, "utf8");
			const message = await service.messages.submit(principal, {
				partnerId: body.partner_id,
				contentType: body.content_type,
				payload: { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
			});
			await admission.release();
			const answer = JSON.stringify({ message: "Message queued", data: queuedView(message) });
			res.writeHead(202, {
				"x-request-id": crypto.randomUUID(),
				"x-ratelimit-limit": String(admission.headers.limit),
				"x-ratelimit-remaining": String(admission.headers.remaining),
				"x-ratelimit-reset": String(admission.headers.reset),
				"content-type": "application/json",
				"content-length": Buffer.byteLength(answer),
			});
			res.end(answer);
		});
	};
}

function label(i) {
	return String.fromCharCode(65 + i);
}

function stats(values, digits = 1) {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = sorted.length / 2;
	const median = sorted.length % 2 ? sorted[Math.floor(mid)] : (sorted[mid - 1] + sorted[mid]) / 2;
	return `${median.toFixed(digits)} (${sorted[0].toFixed(digits)}–${sorted.at(-1).toFixed(digits)})`;
}

/** One server process: warm up, then count `requests` requests. */
async function measure(dist, requests, top) {
	// SUBMIT_CPU_PROF=dir: a CPU profile of each server process (warm-up and counts included).
	const profile = process.env.SUBMIT_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.SUBMIT_CPU_PROF}`] : [];
	const child = spawn(process.execPath, [...profile, import.meta.filename, "--serve", dist, "--top", String(top)], {
		stdio: ["pipe", "pipe", "inherit"],
	});
	const lines = createInterface({ input: child.stdout });
	const next = () => new Promise((resolve) => lines.once("line", resolve));
	const port = Number(await next());
	const agent = new Agent({ keepAlive: true, maxSockets: 16 });
	const body = JSON.stringify({
		partner_id: "ptn_bench",
		content_type: "application/edi-x12",
		payload: { content: edi },
	});
	const post = () =>
		new Promise((resolve, reject) => {
			const req = httpRequest(
				{
					host: "127.0.0.1",
					port,
					path: "/v1/messages",
					method: "POST",
					agent,
					headers: {
						authorization: "Bearer key_bench",
						"content-type": "application/json",
						"content-length": Buffer.byteLength(body),
					},
				},
				(res) => {
					res.resume();
					res.on("end", () => (res.statusCode === 202 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
				},
			);
			req.on("error", reject);
			req.end(body);
		});
	const run = async (count) => {
		let left = count;
		await Promise.all(
			Array.from({ length: 16 }, async () => {
				while (left-- > 0) await post();
			}),
		);
	};
	await run(Math.min(5000, requests));
	// CPU first, alone; then the counts, whose profiler and hook slow the process.
	child.stdin.write("cpu\n");
	await next();
	await run(requests);
	child.stdin.write(`stop ${requests}\n`);
	const { cpuUs, systemUs } = JSON.parse(await next());
	// SUBMIT_COUNTS=0: no counts (a CPU profile of the requests alone).
	const counted = process.env.SUBMIT_COUNTS === "0" ? 0 : Math.min(requests, 5000);
	child.stdin.write("counts\n");
	await next();
	await run(counted);
	child.stdin.write(`stop ${counted}\n`);
	const result = { ...JSON.parse(await next()), cpuUs, systemUs };
	agent.destroy();
	child.stdin.end();
	await new Promise((resolve) => child.once("exit", resolve));
	return result;
}

async function serve(dist) {
	const top = option("--top", 0);
	const { getRequestListener } = await import("@hono/node-server");
	const { pino } = await import("pino");
	const { createServer } = await import("node:http");
	const { Session } = await import("node:inspector");
	const { createHook } = await import("node:async_hooks");

	const logger = pino({ level: "error" }); // as the throughput bench's servers (LOG_LEVEL=error)
	const principal = {
		kind: "api_key",
		credentialId: "key_bench",
		accountId: "acc_bench",
		plan: "business",
		userId: null,
		role: null,
		scope: "tenant",
		environment: "live",
		permissions: ["messages:write", "messages:read"],
		allowedTenantIds: null,
		expiresAt: null,
		tenantId: "ten_bench",
	};
	const now = new Date("2026-11-28T05:00:00.000Z");
	let sequence = 0;
	const record = (input) => ({
		id: `msg_${++sequence}`,
		messageId: `<${sequence}@bench>`,
		tenantId: principal.tenantId,
		partnerId: input.partnerId,
		partnerName: "Beta",
		partnerAs2Id: "BETA",
		status: "queued",
		direction: "outbound",
		environment: "live",
		fromAs2Id: "ALPHA",
		toAs2Id: "BETA",
		subject: input.subject ?? null,
		contentType: input.contentType,
		filename: input.filename ?? null,
		bytes: input.payload.bytes.byteLength,
		compressed: true,
		encrypted: true,
		signed: true,
		mdnMode: "sync",
		mdnStatus: null,
		priority: "normal",
		attempts: 0,
		lastAttemptAt: null,
		scheduledAt: null,
		sentAt: null,
		deliveredAt: null,
		errorCode: null,
		errorMessage: null,
		details: {},
		createdAt: now,
		updatedAt: now,
	});
	const service = {
		deps: {
			logger,
			now: () => now,
			config: { enterpriseLimits: null },
			store: { jobs: { depth: async () => [] } },
			blobs: {},
		},
		authenticate: async () => principal,
		admit: async () => ({ headers: { limit: 6000, remaining: 5999, reset: 1795000000 }, release: async () => {} }),
		messages: { submit: async (_principal, input) => record(input) },
	};
	const server = createServer(
		dist === "floor"
			? floorListener(service, await import(join(import.meta.dirname, "..", "dist", "service", "index.js")))
			: getRequestListener((await appOf(dist, service, logger)).fetch),
	);
	server.keepAliveTimeout = 60_000;
	await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
	console.log(server.address().port);

	let promises = 0;
	// With --top, one promise in 7 (a prime: a request makes a fixed number) has its first frames recorded: where the promises are made.
	const promiseSites = new Map();
	const hook = createHook({
		init(_id, type) {
			if (type !== "PROMISE" || ++promises % 7 !== 0 || top === 0) return;
			const limit = Error.stackTraceLimit;
			Error.stackTraceLimit = 8;
			const stack = (new Error().stack ?? "").split("\n").slice(4, 7);
			Error.stackTraceLimit = limit;
			const site = stack
				.map((line) =>
					line
						.trim()
						.replace(/^at /, "")
						.replace(/file:\/\/.*?\/(packages|node_modules)\//, ""),
				)
				.join(" < ");
			promiseSites.set(site, (promiseSites.get(site) ?? 0) + 7);
		},
	});
	const session = new Session();
	session.connect();
	const post = (method, params = {}) =>
		new Promise((resolve, reject) =>
			session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
		);
	let cpu;
	let counting = false;
	const lines = createInterface({ input: process.stdin });
	for await (const line of lines) {
		if (line === "cpu") {
			cpu = process.cpuUsage();
			console.log("started");
		} else if (line.startsWith("stop") && !counting) {
			const used = process.cpuUsage(cpu);
			const count = Number(line.split(" ")[1]);
			console.log(JSON.stringify({ cpuUs: (used.user + used.system) / count, systemUs: used.system / count }));
		} else if (line === "counts") {
			counting = true;
			await post("HeapProfiler.startSampling", {
				samplingInterval: 256,
				includeObjectsCollectedByMajorGC: true,
				includeObjectsCollectedByMinorGC: true,
			});
			hook.enable();
			promises = 0;
			console.log("started");
		} else if (line.startsWith("stop")) {
			hook.disable();
			const count = Number(line.split(" ")[1]);
			const { profile } = await post("HeapProfiler.stopSampling");
			const bySite = new Map();
			let heapBytes = 0;
			const walk = (node, caller) => {
				const { functionName, url, lineNumber } = node.callFrame;
				const file = url.replace(/^.*?\/(packages|node_modules)\//, "");
				const here = url ? `${functionName || "(anonymous)"} ${file}:${lineNumber + 1}` : caller;
				if (node.selfSize > 0) {
					heapBytes += node.selfSize;
					const site = url ? here : `${functionName || "(anonymous)"} < ${caller}`;
					bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
				}
				for (const child of node.children) walk(child, here);
			};
			walk(profile.head, "(root)");
			if (count === 0) heapBytes = 0;
			const sites = [...bySite]
				.sort((a, b) => b[1] - a[1])
				.slice(0, top)
				.map(([site, bytes]) => `${String(Math.round(bytes / count)).padStart(7)}  ${site}`)
				.concat(
					[...promiseSites]
						.sort((a, b) => b[1] - a[1])
						.slice(0, top)
						.map(([site, made]) => `${(made / count).toFixed(2).padStart(7)} promises  ${site}`),
				);
			console.log(
				JSON.stringify({
					heapBytes: count ? heapBytes / count : 0,
					promises: count ? promises / count : 0,
					sites,
				}),
			);
			server.close();
			server.closeAllConnections();
			session.disconnect();
			break;
		}
	}
}
