// The plans of GET /v1/messages' queries on a table of BENCH_ROWS messages (20,000): each
// filter's page, its exact count and its capped count, and the MDN timeout scan, as the
// adapter sends them (node-postgres' Client.query wrapped to keep each statement and its
// parameters), then each run again under EXPLAIN (ANALYZE, BUFFERS). Prints each plan's scans
// and flags a sequential scan of `messages` or `message_states`. A throwaway cluster; reads the
// built package (`npm run build` first).
//
//   node packages/storage-pg/bench/list-plans.mjs            # BENCH_VERBOSE=1: whole plans
import { createRequire } from "node:module";
import { findPostgresBin, startCluster } from "../../../test/pg/cluster.mjs";
import { outboundMessage } from "../../storage-sqlite/bench/message-steps.mjs";

const storeModule = new URL(process.env.BENCH_STORE_MODULE ?? "../dist/index.js", import.meta.url);
const { createPgStore } = await import(storeModule.href);
// The store's own node-postgres (another checkout's build has its own), whose queries are kept.
const pg = createRequire(storeModule)("pg");
const ROWS = Number(process.env.BENCH_ROWS ?? 20_000);
const VERBOSE = process.env.BENCH_VERBOSE === "1";

// A history as a tenant's looks: most messages delivered, a few failed or in flight.
const STATUSES = [...Array(90).fill("delivered"), ...Array(6).fill("failed"), "queued", "processing", "sent", "sent"];
const MDN = [
	...Array(85).fill("received"),
	...Array(10).fill("none"),
	"pending",
	"pending",
	"failed",
	"timeout",
	"timeout",
];

const captured = [];
let capturing = false;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, values, ...rest) {
	if (capturing) {
		const text = typeof config === "string" ? config : config.text;
		const params = typeof config === "string" ? values : (config.values ?? values);
		if (/^\s*(select|with)/i.test(text)) captured.push({ text, params: Array.isArray(params) ? params : [] });
	}
	return query.call(this, config, values, ...rest);
};

const bin = findPostgresBin();
if (!bin) throw new Error("PostgreSQL is not installed");
const cluster = await startCluster(bin);
const store = await createPgStore({ url: cluster.url, poolSize: 1 });
const client = new pg.Client({ connectionString: cluster.url });
try {
	await client.connect();
	const base = Date.UTC(2026, 0, 1);
	for (let n = 0; n < ROWS; ) {
		await store.transaction(async (tx) => {
			for (let i = 0; i < 2000 && n < ROWS; i++, n++) {
				const at = new Date(base + n * 60_000);
				const status = STATUSES[(n * 7) % STATUSES.length];
				await tx.messages.create({
					...outboundMessage(`msg_${String(n).padStart(8, "0")}`, at, n),
					tenantId: n % 5 === 0 ? "tnt_other" : "tnt_bench",
					status,
					mdnStatus: MDN[(n * 13) % MDN.length],
					mdnDeadline: status === "sent" ? new Date(at.getTime() + 3_600_000) : null,
					errorCode: status === "failed" ? "PARTNER_UNREACHABLE" : null,
				});
			}
		});
	}
	await client.query("analyze");
	const mid = new Date(base + (ROWS / 2) * 60_000);
	const filters = [
		["status", { status: "failed" }],
		["status, none such", { status: "received" }],
		["MDN status", { mdnStatus: "timeout" }],
		["partner and status", { partnerId: "prt_b", status: "failed" }],
		["status and dates", { status: "delivered", fromDate: mid }],
		["status and search", { status: "failed", search: "order 12" }],
		["status and has errors", { status: "failed", hasErrors: true }],
		["status and direction", { status: "queued", direction: "outbound" }],
		["MDN status and partner", { mdnStatus: "pending", partnerId: "prt_a" }],
		["partner", { partnerId: "prt_c" }],
		["direction", { direction: "inbound" }],
		["none", {}],
	];
	const explain = async (label, run) => {
		captured.length = 0;
		capturing = true;
		await run();
		capturing = false;
		for (const { text, params } of captured) {
			const { rows } = await client.query(`explain (analyze, buffers, costs off) ${text}`, params);
			const plan = rows.map((r) => r["QUERY PLAN"]);
			const scans = plan
				.map((line) => line.trim().replace(/^->\s*/, ""))
				.filter((line) => /Scan|Join|Nested Loop|Sort|Limit|Execution Time/.test(line))
				.map((line) => line.replace(/\s*\(actual.*$/, ""));
			const seq = plan.some((line) => /Seq Scan on (messages|message_states)\b/.test(line));
			const kind = /count\(\*\)/i.test(text) ? "count" : "page";
			console.log(`${seq ? "SEQ " : "    "}${label} [${kind}]: ${scans.join(" | ")}`);
			if (VERBOSE) console.log(plan.map((line) => `        ${line}`).join("\n"));
		}
	};
	console.log(`plans on ${ROWS} messages (tnt_bench: ${ROWS - ROWS / 5}), page 2 of 25:`);
	for (const [label, filter] of filters) {
		await explain(`${label}, capped`, () =>
			store.messages.list("tnt_bench", filter, { page: 2, perPage: 25, countLimit: 1000 }),
		);
		await explain(`${label}, exact`, () => store.messages.list("tnt_bench", filter, { page: 2, perPage: 25 }));
	}
	await explain("MDN timeout scan", () => store.messages.listMdnOverdue(new Date(base + ROWS * 60_000), 100));
} finally {
	pg.Client.prototype.query = query;
	await client.end();
	await store.close();
	cluster.stop();
}
