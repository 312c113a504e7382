// Issue #7 benchmark: POST /v1/epcis/query over 1,000,000 indexed events (target p95 < 50 ms
// for EQ_bizStep + an eventTime range + MATCH_epc). The events are bulk-inserted through the
// storage port into a SQLite file once; each run is a fresh process that opens it and times
// requests through the real app (createApp + app.request: authentication, rate limits,
// validation, query, JSON), sequentially, with random parameters per request. Prints
// p50/p95/p99 per query: the median of the runs, min–max across runs as noise.
//
// BENCH_EPCIS_EVENTS (default 1000000), BENCH_RUNS (3), BENCH_REQUESTS (200 per query and run);
// BENCH_EPCIS_DB=path keeps (and reuses) the database instead of a temporary one.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createApp, createFsBlobStore, createService } from "@as2kit/server";
import { createSqliteStore } from "@as2kit/storage-sqlite";
import { benchEvents, product, sgtin, site } from "./epcis-data.mjs";
import { percentile, summary } from "./lib.mjs";

const EVENTS = Number(process.env.BENCH_EPCIS_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const MASTER_KEY = new Uint8Array(32).fill(9);
const DAY = 86_400_000;
const START = Date.parse("2025-01-01T00:00:00.000Z");

function open(dir) {
	const store = createSqliteStore({ url: join(dir, "epcis.sqlite") });
	const service = createService({
		store,
		blobs: createFsBlobStore(join(dir, "blobs")),
		config: { masterKey: MASTER_KEY, defaultPlan: "enterprise", passwordCostLog2: 10 },
	});
	return { store, app: createApp({ service }) };
}

async function call(app, method, path, { token, body } = {}) {
	const response = await app.request(path, {
		method,
		headers: {
			"content-type": "application/json",
			...(token ? { authorization: `Bearer ${token}` } : {}),
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const json = await response.json();
	if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
	return json;
}

/** The database: a tenant with EVENTS events, another with 5% as many; returns a messages:read key. */
async function load(dir) {
	const { store, app } = open(dir);
	const account = { password: "bench password", password_confirmation: "bench password" };
	const owner = await call(app, "POST", "/auth/register", {
		body: { name: "Bench", email: "bench@bench.example", ...account },
	});
	const key = (
		await call(app, "POST", "/v1/api-keys", {
			token: owner.token,
			body: { name: "query", scope: "tenant", tenant_id: owner.tenant.id, permissions: ["messages:read"] },
		})
	).data.key;
	const other = await call(app, "POST", "/auth/register", {
		body: { name: "Other", email: "other@bench.example", ...account },
	});
	const started = performance.now();
	for (const batch of benchEvents(owner.tenant.id, EVENTS, 5000)) await store.epcis.insertEvents(batch);
	for (const batch of benchEvents(other.tenant.id, Math.ceil(EVENTS / 20), 5000)) await store.epcis.insertEvents(batch);
	const seconds = (performance.now() - started) / 1000;
	await store.close();
	return { key, seconds };
}

/** The queries, each a function of a PRNG draw in [0, 1) returning parameters. */
const iso = (ms) => new Date(ms).toISOString();
const window = (r, days) => {
	const from = START + Math.floor(r * (330 - days)) * DAY;
	return { GE_eventTime: iso(from), LT_eventTime: iso(from + days * DAY) };
};
const items = Math.floor(EVENTS / 6);
const QUERIES = {
	"EQ_bizStep + eventTime 90 d + MATCH_epc (target)": (r) => ({
		EQ_bizStep: "urn:epcglobal:cbv:bizstep:shipping",
		...window(r, 90),
		MATCH_epc: sgtin(Math.floor(r * items) * 2),
	}),
	MATCH_epc: (r) => ({ MATCH_epc: sgtin(Math.floor(r * items) * 2 + 1) }),
	"MATCH_anyEPC + eventTime 30 d": (r) => ({ MATCH_anyEPC: sgtin(Math.floor(r * items) * 2), ...window(r, 30) }),
	"MATCH_epc product pattern + eventTime 90 d": (r) => ({
		MATCH_epc: `urn:epc:idpat:sgtin:${product(Math.floor(r * 20000))}.*`,
		...window(r, 90),
	}),
	EQ_bizTransaction_po: (r) => ({
		EQ_bizTransaction_po: `urn:epcglobal:cbv:bt:0399999000005:PO-${Math.floor(r * items)}`,
	}),
	"WD_readPoint + eventTime 30 d": (r) => ({ WD_readPoint: site(Math.floor(r * 500)), ...window(r, 30) }),
	EQ_eventID: (r) => ({
		EQ_eventID: `urn:uuid:00000000-0000-4000-8000-${String(Math.floor(r * EVENTS)).padStart(12, "0")}`,
	}),
	"EQ_bizStep + eventTime 30 d (~15k matches)": (r) => ({ EQ_bizStep: "receiving", ...window(r, 30) }),
	"company pattern + EQ_bizStep + eventTime 30 d (~6k matches)": (r) => ({
		MATCH_epc: `urn:epc:idpat:sgtin:${["0614141", "0355154", "4012345"][Math.floor(r * 3)]}.*.*`,
		EQ_bizStep: "packing",
		...window(r, 30),
	}),
	"no parameters (all 1M, first page)": () => ({}),
};

/** One run, in its own process: every query REQUESTS times (after a warm-up), latencies in ms. */
async function run(dir, key) {
	const { store, app } = open(dir);
	let seed = 7;
	const next = () => {
		seed = (seed * 1103515245 + 12345) % 2147483648;
		return seed / 2147483648;
	};
	const out = {};
	for (const [name, parameters] of Object.entries(QUERIES)) {
		const times = [];
		let matched = 0;
		for (let i = 0; i < REQUESTS + 20; i++) {
			const body = { query_type: "SimpleEventQuery", parameters: parameters(next()) };
			const t0 = performance.now();
			const json = await call(app, "POST", "/v1/epcis/query?per_page=20", { token: key, body });
			const ms = performance.now() - t0;
			if (i >= 20) {
				times.push(ms);
				matched += json.pagination.total;
			}
		}
		out[name] = {
			p50: percentile(times, 50),
			p95: percentile(times, 95),
			p99: percentile(times, 99),
			meanMatches: matched / REQUESTS,
		};
	}
	await store.close();
	return out;
}

if (process.argv[2] === "--run") {
	console.log(JSON.stringify(await run(process.argv[3], process.argv[4])));
} else {
	const keep = process.env.BENCH_EPCIS_DB;
	const dir = keep ?? mkdtempSync(join(tmpdir(), "as2kit-bench-epcis-"));
	const keyFile = join(dir, "bench-key.txt");
	try {
		let key;
		if (keep && existsSync(keyFile)) {
			key = readFileSync(keyFile, "utf8");
			console.log(`EPCIS query: reusing ${dir}`);
		} else {
			const loaded = await load(dir);
			key = loaded.key;
			writeFileSync(keyFile, key);
			const rate = Math.round((EVENTS * 1.05) / loaded.seconds);
			console.log(
				`EPCIS query: ${EVENTS.toLocaleString("en")} events (+5% in another tenant) bulk-inserted through the store in ${loaded.seconds.toFixed(0)} s (${rate.toLocaleString("en")} events/s)`,
			);
		}
		const script = fileURLToPath(import.meta.url);
		const runs = [];
		for (let i = 0; i < RUNS; i++) {
			runs.push(JSON.parse(execFileSync(process.execPath, [script, "--run", dir, key], { encoding: "utf8" })));
		}
		console.log(
			`POST /v1/epcis/query, ${REQUESTS} sequential requests per query and run, median of ${RUNS} runs (min–max):`,
		);
		for (const name of Object.keys(QUERIES)) {
			const fmt = (p) => {
				const s = summary(runs.map((r) => r[name][p]));
				return `${p} ${s.median.toFixed(1)} ms (${s.min.toFixed(1)}–${s.max.toFixed(1)})`;
			};
			const matches = summary(runs.map((r) => r[name].meanMatches)).median;
			console.log(`  ${name}: ${fmt("p50")}, ${fmt("p95")}, ${fmt("p99")}; ${matches.toFixed(1)} matches on average`);
		}
		const target = summary(runs.map((r) => r["EQ_bizStep + eventTime 90 d + MATCH_epc (target)"].p95)).median;
		console.log(`  target p95 < 50 ms: ${target < 50 ? "met" : "NOT met"} (${target.toFixed(1)} ms)`);
	} finally {
		if (!keep) rmSync(dir, { recursive: true, force: true });
	}
}
