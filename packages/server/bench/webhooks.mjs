// `npm run bench` (server): webhook delivery of 10,000 events to a local receiver, end to end:
// recordEvent (outbox + fan-out job) → fan-out → dispatcher → HTTP → receiver, on a SQLite
// file with the reference server's defaults (worker 8, dispatcher 32, 8 per endpoint).
//   burst: all events recorded as fast as possible (100 per transaction): deliveries per second,
//          and the lag of each (receipt − event time), which here includes the queue.
//   paced: events recorded at a steady rate below capacity: the lag a delivery sees, which
//          includes the worker's idle poll (500 ms) before it picks up a fan-out job.
// Figures: median of RUNS runs, min–max in brackets. Usage: node webhooks.mjs [events] [runs] [rate/s]
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createBackground, createFsBlobStore, createService, recordEvent } from "@as2kit/server";
import { createSqliteStore } from "@as2kit/storage-sqlite";

const EVENTS = Number(process.argv[2] ?? 10_000);
const RUNS = Number(process.argv[3] ?? 3);
const RATE = Number(process.argv[4] ?? 150);
const here = fileURLToPath(new URL(".", import.meta.url));

const data = {
	id: "msg_000001",
	message_id: "20260301.1@as2kit.example",
	partner: { id: "prt_000001", name: "Acme Corp", as2_id: "ACME" },
	status: "sent",
	direction: "outbound",
	sent_at: "2026-03-01T09:00:00.000000Z",
	transmission_time_ms: 420,
};

const receiver = fork(join(here, "receiver.mjs"), { stdio: "inherit" });
const messages = [];
let waiting = null;
receiver.on("message", (m) => {
	if (waiting) {
		const w = waiting;
		waiting = null;
		w(m);
	} else messages.push(m);
});
const next = () => (messages.length ? Promise.resolve(messages.shift()) : new Promise((r) => (waiting = r)));
const { port } = await next();

async function run(mode) {
	const dir = mkdtempSync(join(tmpdir(), "as2kit-bench-webhooks-"));
	const store = createSqliteStore({ url: join(dir, "as2.sqlite") });
	const service = createService({
		store,
		blobs: createFsBlobStore(join(dir, "blobs")),
		config: {
			masterKey: randomBytes(32),
			allowHttp: true,
			allowPrivateTargets: true,
			passwordCostLog2: 10,
			defaultPlan: "enterprise",
		},
	});
	const { token, account, tenant } = await service.auth.register({
		name: "Bench",
		email: "bench@example.com",
		password: "long enough!",
	});
	const principal = await service.authenticate(token, null);
	await service.webhooks.create(principal, { url: `http://127.0.0.1:${port}/hooks`, events: ["message.*"] });
	const background = createBackground(service);
	background.start();
	receiver.send({ type: "expect", count: EVENTS });
	await next();
	const started = Date.now();
	const batch = mode === "burst" ? 100 : Math.max(1, Math.round(RATE / 100));
	for (let i = 0; i < EVENTS; i += batch) {
		await store.transaction(async (tx) => {
			for (let j = i; j < Math.min(EVENTS, i + batch); j++) {
				await recordEvent(
					tx,
					{ kind: "message.sent", accountId: account.id, tenantId: tenant.id, environment: "live", data },
					new Date(),
				);
			}
		});
		if (mode === "paced") {
			// Keep to the rate: the next batch is due at started + (i + batch) / RATE seconds.
			const due = started + ((i + batch) / RATE) * 1000;
			const wait = due - Date.now();
			if (wait > 0) await new Promise((r) => setTimeout(r, wait));
		}
		if (mode === "burst") background.wake();
	}
	const done = await next();
	const seconds = (done.lastAt - started) / 1000;
	await background.stop();
	await store.close();
	rmSync(dir, { recursive: true, force: true });
	const lags = done.lags.sort((a, b) => a - b);
	const pct = (p) => lags[Math.min(lags.length - 1, Math.floor((p / 100) * lags.length))];
	return { perSecond: EVENTS / seconds, p50: pct(50), p99: pct(99), duplicates: done.duplicates };
}

function summary(values) {
	const sorted = [...values].sort((a, b) => a - b);
	return { median: sorted[Math.floor(sorted.length / 2)], min: sorted[0], max: sorted[sorted.length - 1] };
}
const show = (label, values, unit, digits = 0) => {
	const s = summary(values);
	console.log(
		`  ${label.padEnd(24)} ${s.median.toFixed(digits)} ${unit}  [${s.min.toFixed(digits)}–${s.max.toFixed(digits)}]`,
	);
};

try {
	console.log(`webhooks: ${EVENTS} events to a local receiver, ${RUNS} runs each, node ${process.version}`);
	for (const mode of ["burst", "paced"]) {
		const results = [];
		for (let i = 0; i < RUNS; i++) results.push(await run(mode));
		console.log(mode === "burst" ? "burst (recorded as fast as possible):" : `paced (${RATE} events/s):`);
		show(
			"deliveries/s",
			results.map((r) => r.perSecond),
			"/s",
		);
		show(
			"lag p50",
			results.map((r) => r.p50),
			"ms",
		);
		show(
			"lag p99",
			results.map((r) => r.p99),
			"ms",
		);
		const duplicates = results.reduce((n, r) => n + r.duplicates, 0);
		if (duplicates > 0) console.log(`  duplicates received: ${duplicates}`);
	}
} finally {
	receiver.send({ type: "stop" });
}
