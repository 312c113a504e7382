// Issue #5 benchmark: GET /v1/messages with filters at 1,000,000 stored messages of one tenant;
// p95 latency per query (target < 30 ms). `node packages/server/bench/run.mjs messages-list`.
//
// The data goes in fast, straight into the SQLite file with prepared inserts (the store's
// create() costs ~0.2 ms a row, too slow for a million); every measured request goes through
// the real app: createSqliteStore → createService → createApp → app.request(), API key
// authentication, validation, the store's queries and JSON serialization included.
// Figures: per query and overall p50/p95/p99 of each run; the median of the runs with
// min–max as the machine's noise.
//
// Environment: BENCH_LIST_MESSAGES (default 1000000), BENCH_LIST_RUNS (3), BENCH_LIST_ROUNDS
// (requests per query per run, 40), BENCH_LIST_DB (keep the generated database at this path
// and reuse it on the next run: generating a million messages takes minutes).
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createApp, createFsBlobStore, createService } from "@as2kit/server";
import { createSqliteStore } from "@as2kit/storage-sqlite";
import Database from "better-sqlite3";
import { percentile, summary } from "./lib.mjs";

const MESSAGES = Number(process.env.BENCH_LIST_MESSAGES ?? 1_000_000);
const RUNS = Number(process.env.BENCH_LIST_RUNS ?? 3);
const ROUNDS = Number(process.env.BENCH_LIST_ROUNDS ?? 40);
const PARTNERS = 20;
const DAY = 86_400_000;
const NOW = Date.now();
const SPAN_DAYS = 365;
const TARGET_MS = 30;

const workDir = mkdtempSync(join(tmpdir(), "as2kit-bench-messages-"));
const dbFile = process.env.BENCH_LIST_DB ?? join(workDir, "messages.sqlite");
const metaFile = `${dbFile}.bench.json`;
const masterKey = new Uint8Array(32).fill(3);

try {
	const meta = existsSync(metaFile) ? reuse() : await generate();
	await measure(meta);
} finally {
	rmSync(workDir, { recursive: true, force: true });
}

function reuse() {
	const meta = JSON.parse(readFileSync(metaFile, "utf8"));
	if (meta.messages !== MESSAGES)
		throw new Error(`${dbFile} holds ${meta.messages} messages; remove it or set BENCH_LIST_MESSAGES`);
	console.log(`reusing ${dbFile}: ${meta.messages.toLocaleString("en")} messages`);
	return meta;
}

function openApp() {
	const store = createSqliteStore({ url: dbFile });
	const service = createService({
		store,
		blobs: createFsBlobStore(join(workDir, "blobs")),
		// Enterprise: no rate limit, so the figures are the requests' own.
		config: { masterKey, defaultPlan: "enterprise", passwordCostLog2: 10 },
	});
	return { app: createApp({ service }), store };
}

async function call(app, method, path, token, body) {
	const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
	const response = await app.request(path, { method, headers, body: body && JSON.stringify(body) });
	const json = await response.json();
	if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
	return json;
}

/** A user, 20 partners and a messages:read key through the API; then the messages, in bulk. */
async function generate() {
	for (const suffix of ["", "-wal", "-shm"]) rmSync(`${dbFile}${suffix}`, { force: true });
	const { app, store } = openApp();
	const password = "bench password 1";
	const registered = await app.request("/auth/register", {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ name: "Bench", email: "bench@example.com", password, password_confirmation: password }),
	});
	const { token, tenant } = await registered.json();
	const account = (await call(app, "GET", "/v1/account", token)).data.id;
	const partners = [];
	for (let i = 1; i <= PARTNERS; i++) {
		const body = { name: `Partner ${i}`, as2_id: `PARTNER-${i}`, url: `https://as2.partner${i}.example/receive` };
		partners.push((await call(app, "POST", "/v1/partners", token, body)).data);
	}
	const key = (
		await call(app, "POST", "/v1/api-keys", token, {
			name: "bench",
			scope: "tenant",
			tenant_id: tenant.id,
			environment: "live",
			permissions: ["messages:read"],
		})
	).data.key;
	await store.close();

	const started = performance.now();
	const meta = { messages: MESSAGES, key, tenant: tenant.id, account, partners: partners.map((p) => p.id) };
	bulkInsert(meta, partners);
	const seconds = (performance.now() - started) / 1000;
	const mb = statSync(dbFile).size / 1024 / 1024;
	console.log(`generated ${MESSAGES.toLocaleString("en")} messages in ${seconds.toFixed(0)} s (${mb.toFixed(0)} MB)`);
	writeFileSync(metaFile, JSON.stringify(meta));
	return meta;
}

function bulkInsert(meta, partners) {
	const db = new Database(dbFile);
	// Loading only: the inserts are repeatable, so durability can wait for the end.
	db.pragma("journal_mode = WAL");
	db.pragma("synchronous = OFF");
	db.pragma("cache_size = -1000000");
	const columns = db
		.prepare("SELECT name FROM pragma_table_info('messages')")
		.all()
		.map((c) => c.name);
	const insert = db.prepare(
		`INSERT INTO messages (${columns.join(", ")}) VALUES (${columns.map((c) => `@${c}`).join(", ")})`,
	);
	const random = mulberry32(20261123);
	const pick = (weights) => {
		let r = random();
		for (const [value, weight] of weights) {
			r -= weight;
			if (r < 0) return value;
		}
		return weights[weights.length - 1][0];
	};
	// Busy partners and quiet ones: partner i gets a share proportional to 1/i.
	const partnerWeights = partners.map((p, i) => [p, 1 / (i + 1)]);
	const weightSum = partnerWeights.reduce((sum, [, w]) => sum + w, 0);
	for (const entry of partnerWeights) entry[1] /= weightSum;
	const types = [
		["application/edi-x12", 0.5],
		["application/edifact", 0.2],
		["application/xml", 0.2],
		["application/json", 0.05],
		["application/pdf", 0.05],
	];
	const subjects = ["PO", "Invoice", "ASN", "Order confirmation", "Remittance advice"];
	const batch = db.transaction((from, to) => {
		for (let i = from; i < to; i++) insert.run(row(i));
	});
	function row(i) {
		const id = `msg_${String(i + 1).padStart(6, "0")}`;
		const created = NOW - SPAN_DAYS * DAY + Math.floor(((i + random()) * SPAN_DAYS * DAY) / MESSAGES);
		const partner = pick(partnerWeights);
		const outbound = random() < 0.6;
		const recent = created > NOW - 600_000;
		const status = outbound
			? recent
				? pick([
						["queued", 0.5],
						["processing", 0.2],
						["sent", 0.3],
					])
				: pick([
						["delivered", 0.9],
						["sent", 0.05],
						["failed", 0.05],
					])
			: "received";
		const mdnMode = pick([
			["async", 0.6],
			["sync", 0.35],
			["none", 0.05],
		]);
		const mdnStatus =
			mdnMode === "none"
				? "none"
				: status === "delivered" || status === "received"
					? "received"
					: status === "failed"
						? pick([
								["timeout", 0.4],
								["failed", 0.6],
							])
						: "pending";
		const failed = status === "failed";
		const delivered = status === "delivered" ? created + 1000 + Math.floor(random() * 60_000) : null;
		const mdn =
			mdnStatus === "received"
				? JSON.stringify({
						disposition: "automatic-action/MDN-sent-automatically; processed",
						receivedContentMic: "yDgPiQ1Qc2zO8jxsnJpg5wvOWdIWZ+5A91p9bXu7Z4g=, sha-256",
						reportingUa: "as2kit bench",
						originalMessageId: `${id}@as2.bench.example`,
						finalRecipient: partner.as2_id,
						signed: true,
						signatureValid: true,
						micMatches: true,
						messageId: null,
						receivedAt: new Date(created + 2000).toISOString(),
					})
				: null;
		return {
			id,
			account_id: meta.account,
			tenant_id: meta.tenant,
			environment: random() < 0.1 ? "test" : "live",
			direction: outbound ? "outbound" : "inbound",
			message_id: `${hex(random)}${hex(random)}@as2.${outbound ? "bench" : partner.as2_id.toLowerCase()}.example`,
			partner_id: partner.id,
			partner_name: partner.name,
			partner_as2_id: partner.as2_id,
			partner_url: partner.url,
			status,
			from_as2_id: outbound ? "BENCH" : partner.as2_id,
			to_as2_id: outbound ? partner.as2_id : "BENCH",
			subject: `${subjects[Math.floor(random() * subjects.length)]} ${4_500_000_000 + i}`,
			content_type: pick(types),
			filename: random() < 0.5 ? `doc-${i}.dat` : null,
			bytes: 500 + Math.floor(random() * 200_000),
			compressed: random() < 0.3 ? 1 : 0,
			encrypted: random() < 0.8 ? 1 : 0,
			signed: random() < 0.9 ? 1 : 0,
			mdn_mode: mdnMode,
			mdn_status: mdnStatus,
			mdn_data: mdn,
			mic: "yDgPiQ1Qc2zO8jxsnJpg5wvOWdIWZ+5A91p9bXu7Z4g=, sha-256",
			priority: "normal",
			headers: "{}",
			payload_key: `payloads/${id}`,
			scheduled_at: null,
			attempts: outbound ? (failed ? 5 : 1) : 0,
			last_attempt_at: outbound ? created + 500 : null,
			sent_at: outbound && status !== "queued" ? created + 800 : null,
			delivered_at: delivered,
			failed_at: failed ? created + 3_600_000 : null,
			mdn_deadline: mdnMode === "async" && outbound ? created + DAY : null,
			error_code: failed ? (mdnStatus === "timeout" ? "MDN_TIMEOUT" : "PARTNER_UNREACHABLE") : null,
			error_message: failed ? "connect ECONNREFUSED" : null,
			transmission_time_ms: outbound ? 100 + Math.floor(random() * 900) : null,
			details: "{}",
			rejected_mdns: "[]",
			created_at: created,
			updated_at: delivered ?? created + 1000,
		};
	}
	const sample = row(0);
	const missing = columns.filter((c) => !(c in sample));
	if (missing.length) throw new Error(`bench rows lack columns ${missing.join(", ")}: update messages-list.mjs`);
	for (let from = 0; from < MESSAGES; from += 20_000) batch(from, Math.min(MESSAGES, from + 20_000));
	// The inserts queued every message for the search index (storage-sqlite search-indexing.ts);
	// index them in one pass, the way migration 0006 indexed existing messages.
	db.exec(`
		INSERT INTO message_search_rows (row, message_pk, tenant_id)
			SELECT created_at * 1048576 + row_number() OVER (PARTITION BY created_at ORDER BY id) - 1, id, tenant_id
			FROM messages WHERE id IN (SELECT message_pk FROM message_search_pending);
		INSERT INTO message_search (rowid, subject, message_id)
			SELECT r.row, m.subject, m.message_id FROM message_search_rows r JOIN messages m ON m.id = r.message_pk;
		DELETE FROM message_search_pending;
	`);
	db.pragma("wal_checkpoint(TRUNCATE)");
	db.close();
}

/** The mix: no filter, each common filter, a date range, a deep page, two searches, a combination. */
function queries(meta) {
	const iso = (ms) => new Date(ms).toISOString();
	const busy = meta.partners[0];
	const quiet = meta.partners[PARTNERS - 1];
	const rare = 4_500_000_000 + Math.floor(MESSAGES * 0.37);
	return [
		["no filter", ""],
		["status=failed", "status=failed"],
		["status=delivered", "status=delivered"],
		["partner_id (busy)", `partner_id=${busy}`],
		["partner_id (quiet)", `partner_id=${quiet}`],
		["direction+date range", `direction=inbound&from_date=${iso(NOW - 60 * DAY)}&to_date=${iso(NOW - 30 * DAY)}`],
		["mdn_status=timeout", "mdn_status=timeout"],
		["has_errors=true", "has_errors=true"],
		["encrypted=false", "encrypted=false"],
		["signed=true", "signed=true"],
		["environment=test", "environment=test"],
		["content_type=pdf", "content_type=application/pdf"],
		["page=50", "page=50"],
		["search (one order)", `search=${rare}`],
		["search (common word)", "search=invoice"],
		["partner+status", `partner_id=${busy}&status=failed`],
	];
}

async function measure(meta) {
	const { app, store } = openApp();
	const mix = queries(meta);
	const request = async (query) => {
		const started = performance.now();
		const response = await app.request(`/v1/messages${query ? `?${query}` : ""}`, {
			headers: { authorization: `Bearer ${meta.key}` },
		});
		const text = await response.text();
		const ms = performance.now() - started;
		if (response.status !== 200) throw new Error(`${query}: ${response.status} ${text.slice(0, 300)}`);
		return { ms, total: JSON.parse(text).pagination };
	};
	// Warm-up: the page cache and the JIT, as on a server that has been running.
	const shape = {};
	for (let i = 0; i < 3; i++) for (const [name, query] of mix) shape[name] = (await request(query)).total;

	const random = mulberry32(7);
	const runs = [];
	for (let run = 0; run < RUNS; run++) {
		const samples = Object.fromEntries(mix.map(([name]) => [name, []]));
		for (let round = 0; round < ROUNDS; round++) {
			for (const [name, query] of shuffle(mix, random)) samples[name].push((await request(query)).ms);
		}
		runs.push(samples);
	}
	await store.close();

	const f = (n) => n.toFixed(1).padStart(6);
	console.log(
		`\nGET /v1/messages, ${MESSAGES.toLocaleString("en")} messages of one tenant; ${RUNS} runs × ${ROUNDS} requests per query, interleaved; ${cpus().length} cores, load ${loadavg()[0].toFixed(1)}`,
	);
	console.log("ms, median of runs (p95 min–max)        p50     p95     p99   p95 range        total");
	let failures = 0;
	for (const [name] of mix) {
		const per = (p) => summary(runs.map((r) => percentile(r[name], p)));
		const p95s = per(95);
		const p95 = p95s.median;
		if (p95 >= TARGET_MS) failures++;
		const total = `${shape[name].total.toLocaleString("en")}${shape[name].total_exact ? "" : "+"}`;
		const range = `${f(p95s.min)}–${f(p95s.max).trim()}`;
		const flag = p95 >= TARGET_MS ? "  ✗" : "";
		console.log(
			`${name.padEnd(34)} ${f(per(50).median)}  ${f(p95)}  ${f(per(99).median)}   ${range.padEnd(15)} ${total.padStart(9)}${flag}`,
		);
	}
	const overall = (p) => summary(runs.map((r) => percentile(Object.values(r).flat(), p)));
	const o95 = overall(95);
	console.log(
		`${"overall".padEnd(34)} ${f(overall(50).median)}  ${f(o95.median)}  ${f(overall(99).median)}   ${f(o95.min)}–${f(o95.max).trim()}`,
	);
	console.log(
		`target: p95 < ${TARGET_MS} ms per query: ${failures === 0 ? "met" : `missed by ${failures} of ${mix.length}`}`,
	);
}

function shuffle(items, random) {
	const out = [...items];
	for (let i = out.length - 1; i > 0; i--) {
		const j = Math.floor(random() * (i + 1));
		[out[i], out[j]] = [out[j], out[i]];
	}
	return out;
}

function hex(random) {
	return Math.floor(random() * 2 ** 32)
		.toString(16)
		.padStart(8, "0");
}

function mulberry32(seed) {
	let a = seed;
	return () => {
		a = (a + 0x6d2b79f5) | 0;
		let t = Math.imul(a ^ (a >>> 15), 1 | a);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}
