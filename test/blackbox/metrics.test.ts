/**
 * `/metrics` and the log lines of the built server after real traffic over real sockets
 * (issue #18, Metrics and logs): two tenants of one server exchange a signed, encrypted
 * message with a sync MDN (the server POSTs to its own /as2/receive), a send to a loopback
 * partner that answers 400 fails, a malformed inbound request is refused, a document is
 * validated and a webhook delivered. Scraped with curl, as Prometheus would, behind
 * AS2_METRICS_TOKEN; the JSON log lines are read from the process's stdout.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOCUMENT_20 } from "../../packages/server/test/helpers/epcis-documents.ts";
import { metricNames, sample } from "../../packages/server/test/helpers/metrics-text.ts";
import { type Receiver, startReceiver } from "../../packages/server/test/helpers/webhook-receiver.ts";
import { eventually } from "../../packages/server/test/helpers/worker.ts";
import { type BuiltServer, REPO, startBuiltServer } from "./built-server.ts";
import { call, createKey, curl, type Registered, rawRequest, register } from "./clients.ts";

const METRICS_TOKEN = "metrics-token-for-the-scraper";
const PAYLOAD_MARKER = "blackbox-payload-never-logged";
const PARTNER_PASSWORD = "blackbox-partner-password-never-logged";

let server: BuiltServer;
let refusing: Receiver;
let hooks: Receiver;

interface Tenant {
	user: Registered;
	key: string;
	as2Id: string;
	identityPem: string;
}
let alpha: Tenant;
let beta: Tenant;

async function tenantOf(user: Registered): Promise<Tenant> {
	const key = await createKey(server.base, user.token, { scope: "account", environment: "live", permissions: ["*"] });
	const tenant = await call(server.base, "GET", `/v1/tenants/${user.tenantId}`, { token: key });
	const identity = await call(server.base, "GET", "/v1/certificates?type=identity", { token: key });
	return { user, key, as2Id: tenant.json.data.as2_id, identityPem: identity.json.data[0].certificate_pem };
}

/** `other` as a partner of `on`, at this server's /as2/receive, with its identity certificate. */
async function partner(on: Tenant, other: Tenant): Promise<string> {
	const created = await call(server.base, "POST", "/v1/partners", {
		token: on.key,
		body: { name: `partner ${other.as2Id}`, as2_id: other.as2Id, url: `${server.base}/as2/receive` },
	});
	expect(created.status, created.text).toBe(201);
	const certificate = await call(server.base, "POST", `/v1/partners/${created.json.data.id}/certificates`, {
		token: on.key,
		body: { name: "identity", usage: "both", certificate: other.identityPem },
	});
	expect(certificate.status, certificate.text).toBe(201);
	return created.json.data.id;
}

async function send(from: Tenant, partnerId: string, body: Record<string, unknown>): Promise<string> {
	const sent = await call(server.base, "POST", "/v1/messages", {
		token: from.key,
		body: { partner_id: partnerId, content_type: "text/plain", payload: { content: "hello" }, ...body },
	});
	expect(sent.status, sent.text).toBe(202);
	return sent.json.data.id;
}

async function settled(from: Tenant, id: string): Promise<{ status: string; error_code: string | null }> {
	return eventually(
		async () => {
			const message = (await call(server.base, "GET", `/v1/messages/${id}`, { token: from.key })).json.data;
			return ["delivered", "failed"].includes(message?.status) ? message : null;
		},
		`message ${id} to settle`,
		60_000,
	);
}

/** GET /metrics with curl: the body, then the status on the last line. */
async function scrape(headers: string[] = ["-H", `Authorization: Bearer ${METRICS_TOKEN}`]) {
	const { stdout, code } = await curl([...headers, "-w", "\n%{http_code}", `${server.base}/metrics`]);
	expect(code).toBe(0);
	const cut = stdout.lastIndexOf("\n");
	return { status: Number(stdout.slice(cut + 1)), text: stdout.slice(0, cut) };
}

/** The server's JSON log lines so far. */
function logLines(): Array<Record<string, unknown>> {
	return server
		.output()
		.split("\n")
		.filter((line) => line.startsWith("{"))
		.map((line) => JSON.parse(line));
}

beforeAll(async () => {
	[server, refusing, hooks] = await Promise.all([
		startBuiltServer({
			env: {
				AS2_ALLOW_HTTP: "1",
				AS2_ALLOW_PRIVATE_TARGETS: "1",
				AS2_DEFAULT_PLAN: "enterprise",
				AS2_METRICS_TOKEN: METRICS_TOKEN,
			},
		}),
		startReceiver(() => 400),
		startReceiver(() => 200),
	]);
	alpha = await tenantOf(await register(server.base));
	beta = await tenantOf(await register(server.base));
}, 120_000);
afterAll(async () => {
	await Promise.all([refusing?.close(), hooks?.close()]);
	await server?.stop();
});

describe("the built server's /metrics and logs after real traffic", () => {
	it("refuses a scrape without the AS2_METRICS_TOKEN bearer, with curl and fetch", async () => {
		expect((await scrape([])).status).toBe(401);
		expect((await scrape(["-H", "Authorization: Bearer wrong"])).status).toBe(401);
		const fetched = await fetch(`${server.base}/metrics`, { signal: AbortSignal.timeout(10_000) });
		expect(fetched.status).toBe(401);
		expect(await fetched.text()).not.toContain("as2kit_");
		expect(fetched.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
		// Forged over a raw socket: a longer token, a prefix, Basic, the token in the query.
		for (const [target, authorization] of [
			["/metrics", `Bearer ${METRICS_TOKEN}x`],
			["/metrics", `Bearer ${METRICS_TOKEN.slice(0, 8)}`],
			["/metrics", `Basic ${Buffer.from(`prometheus:${METRICS_TOKEN}`).toString("base64")}`],
			[`/metrics?token=${METRICS_TOKEN}`, null],
		] as const) {
			const head = `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${authorization ? `Authorization: ${authorization}\r\n` : ""}Connection: close\r\n\r\n`;
			const answer = await rawRequest(server.port, head, [], { timeoutMs: 10_000 });
			expect(answer.status, target).toBe(401);
			expect(answer.raw.toLowerCase()).toContain('www-authenticate: bearer realm="metrics"');
			expect(answer.raw).not.toContain("as2kit_");
		}
		expect((await scrape()).status).toBe(200);
		// The scheme in any case (RFC 9110 §11.1), as some scrapers write it.
		expect((await scrape(["-H", `Authorization: bearer ${METRICS_TOKEN}`])).status).toBe(200);
		server.assertAlive();
	});

	it("answers many scrapers at once and one that aborts mid-request, and stays up", async () => {
		const aborted = await rawRequest(server.port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthoriz", [], {
			resetAfterWrite: true,
			timeoutMs: 10_000,
		});
		expect(aborted.status).toBeNull();
		const scrapes = await Promise.all(Array.from({ length: 16 }, () => scrape()));
		for (const { status, text } of scrapes) {
			expect(status).toBe(200);
			expect(text).toContain("# TYPE as2kit_jobs gauge");
		}
		server.assertAlive();
	});

	it("counts a delivered exchange, a failed send, an inbound refusal, a validation and a webhook", async () => {
		const endpoint = await call(server.base, "POST", "/v1/webhook-endpoints", {
			token: alpha.key,
			body: { url: hooks.url, events: ["message.delivered"] },
		});
		expect(endpoint.status, endpoint.text).toBe(201);
		const toBeta = await partner(alpha, beta);
		await partner(beta, alpha);
		const delivered = await send(alpha, toBeta, { sign: true, encrypt: true, mdn_mode: "sync" });
		expect((await settled(alpha, delivered)).status).toBe("delivered");

		const refusingPartner = await call(server.base, "POST", "/v1/partners", {
			token: alpha.key,
			body: {
				name: "Refusing",
				as2_id: "REFUSING-BLACKBOX",
				url: refusing.url,
				http: { auth: { username: "as2", password: PARTNER_PASSWORD } },
			},
		});
		expect(refusingPartner.status, refusingPartner.text).toBe(201);
		const failed = await send(alpha, refusingPartner.json.data.id, {
			sign: false,
			encrypt: false,
			mdn_mode: "none",
			payload: { content: PAYLOAD_MARKER },
		});
		expect(await settled(alpha, failed)).toMatchObject({ status: "failed", error_code: "PARTNER_REJECTED" });

		const malformed = await curl([
			"-X",
			"POST",
			"--data-binary",
			"x",
			"-w",
			"%{http_code}",
			`${server.base}/as2/receive`,
		]);
		expect(malformed.stdout.trim().endsWith("400")).toBe(true);
		const validated = await call(server.base, "POST", "/v1/epcis/validate", {
			token: alpha.key,
			body: { document: DOCUMENT_20, validation_rules: ["schema_compliance"] },
		});
		expect(validated.json.valid, validated.text).toBe(true);
		await eventually(async () => hooks.requests.length >= 1, "the webhook", 60_000);

		const text = await eventually(async () => {
			const { text } = await scrape();
			return (sample(text, "as2kit_webhook_deliveries_total", { outcome: "succeeded" }) ?? 0) >= 1 ? text : null;
		}, "the webhook delivery to be counted");
		expect(
			sample(text, "as2kit_messages_total", { direction: "outbound", status: "delivered", environment: "live" }),
		).toBe(1);
		expect(
			sample(text, "as2kit_messages_total", { direction: "inbound", status: "received", environment: "live" }),
		).toBe(1);
		expect(
			sample(text, "as2kit_messages_total", { direction: "outbound", status: "failed", environment: "live" }),
		).toBe(1);
		expect(sample(text, "as2kit_transmission_attempts_total", { outcome: "sent", http_status: "200" })).toBe(1);
		expect(
			sample(text, "as2kit_transmission_attempts_total", {
				outcome: "rejected",
				error_code: "PARTNER_REJECTED",
				http_status: "400",
			}),
		).toBe(1);
		expect(sample(text, "as2kit_mdn_wait_seconds_count", { via: "sync" })).toBe(1);
		expect(sample(text, "as2kit_inbound_refusals_total", { reason: "malformed" })).toBe(1);
		expect(sample(text, "as2kit_epcis_validations_total", { outcome: "valid" })).toBe(1);
		expect(sample(text, "as2kit_webhook_delivery_lag_seconds_count", { outcome: "succeeded" })).toBe(1);
		for (const tenant of [alpha, beta]) {
			const days = sample(text, "as2kit_certificate_expiry_days", { tenant_id: tenant.user.tenantId, owner: "tenant" });
			expect(days).toBeGreaterThan(300);
		}
		expect(text).toContain("# TYPE as2kit_jobs gauge");
		expect(text).toContain("# TYPE as2kit_job_oldest_due_age_seconds gauge");
		expect(text).toContain("as2kit_http_requests_total");

		// The log lines of the same traffic, from the process's stdout.
		const lines = logLines();
		const attempt = (id: string) => lines.filter((l) => l.messageId === id && l.msg === "transmission attempt");
		expect(attempt(delivered)).toEqual([
			expect.objectContaining({ level: 30, attempt: 1, outcome: "sent", errorCode: null, partnerId: toBeta }),
		]);
		expect(attempt(failed)).toEqual([
			expect.objectContaining({
				level: 40,
				attempt: 1,
				outcome: "rejected",
				errorCode: "PARTNER_REJECTED",
				httpStatus: 400,
				partnerId: refusingPartner.json.data.id,
			}),
		]);
		expect(typeof attempt(failed)[0]?.durationMs).toBe("number");
		expect(lines.filter((l) => l.messageId === failed && l.msg === "message failed")).toEqual([
			expect.objectContaining({ attempt: 1, errorCode: "PARTNER_REJECTED", partnerId: refusingPartner.json.data.id }),
		]);
		const output = server.output();
		expect(output).not.toContain(PAYLOAD_MARKER);
		expect(output).not.toContain(Buffer.from(PAYLOAD_MARKER).toString("base64"));
		expect(output).not.toContain(PARTNER_PASSWORD);
		server.assertAlive();
	});
});

const EXAMPLES = join(REPO, "examples/observability");
const RULES = join(EXAMPLES, "as2kit-alerts.yml");

/** Runs promtool (Debian's prometheus package; .ci/run installs it). */
function promtool(args: string[], cwd = EXAMPLES): Promise<{ code: number; output: string }> {
	return new Promise((done, fail) => {
		execFile("promtool", args, { cwd, timeout: 60_000 }, (error, stdout, stderr) => {
			if ((error as NodeJS.ErrnoException | null)?.code === "ENOENT") {
				fail(new Error("promtool is not installed: apt-get install prometheus (.ci/run does)"));
				return;
			}
			done({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` });
		});
	});
}

/** What Grafana needs of a dashboard to import it, and what this one promises (Prometheus panels on a 24-column grid). */
const target = v.object({ refId: v.pipe(v.string(), v.nonEmpty()), expr: v.pipe(v.string(), v.nonEmpty()) });
const dashboardSchema = v.object({
	title: v.pipe(v.string(), v.nonEmpty()),
	uid: v.pipe(v.string(), v.regex(/^[a-zA-Z0-9_-]{1,40}$/)),
	schemaVersion: v.pipe(v.number(), v.integer(), v.minValue(36)),
	templating: v.object({ list: v.array(v.object({ name: v.string(), type: v.string() })) }),
	panels: v.pipe(
		v.array(
			v.object({
				id: v.pipe(v.number(), v.integer(), v.minValue(1)),
				type: v.picklist(["timeseries", "table", "stat", "gauge", "bargauge"]),
				title: v.pipe(v.string(), v.nonEmpty()),
				// The dashboard's datasource variable (templating), chosen on import.
				// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a JS template
				datasource: v.object({ type: v.literal("prometheus"), uid: v.literal("${datasource}") }),
				gridPos: v.pipe(
					v.object({
						x: v.pipe(v.number(), v.integer(), v.minValue(0)),
						y: v.pipe(v.number(), v.integer(), v.minValue(0)),
						w: v.pipe(v.number(), v.integer(), v.minValue(1)),
						h: v.pipe(v.number(), v.integer(), v.minValue(1)),
					}),
					v.check((g) => g.x + g.w <= 24, "a panel must fit the 24-column grid"),
				),
				targets: v.pipe(v.array(target), v.minLength(1)),
			}),
		),
		v.minLength(1),
	),
});

/** Every as2kit metric family an expression names (a histogram's _bucket/_count/_sum series by their family). */
function familiesIn(expression: string, known: Set<string>): string[] {
	return [...expression.matchAll(/\bas2kit_[a-z0-9_]+/g)].map(([name]) => {
		const family = name.replace(/_(bucket|count|sum)$/, "");
		return known.has(family) ? family : name;
	});
}

describe("examples/observability: the alert rules and the dashboard", () => {
	it("counts a cancel, made with curl, as cancelled and not as failed; a forged cancel counts nothing", async () => {
		const labels = (status: string) => ({ direction: "outbound", status, environment: "live" });
		// Never sent (scheduled for tomorrow, then cancelled): a partner of its own, no certificate.
		const created = await call(server.base, "POST", "/v1/partners", {
			token: alpha.key,
			body: { name: "Cancelled", as2_id: "CANCELLED-PARTNER", url: `${server.base}/as2/receive`, encrypt: false },
		});
		expect(created.status, created.text).toBe(201);
		const id = await send(alpha, created.json.data.id, {
			scheduled_at: new Date(Date.now() + 86_400_000).toISOString(),
		});
		const before = (await scrape()).text;
		// Another account's key, and no key at all: refused, the message untouched.
		for (const headers of [["-H", `Authorization: Bearer ${beta.key}`], []]) {
			const { stdout } = await curl([
				...headers,
				"-X",
				"POST",
				"-w",
				"\n%{http_code}",
				`${server.base}/v1/messages/${id}/cancel`,
			]);
			expect(["404", "401"]).toContain(stdout.slice(stdout.lastIndexOf("\n") + 1));
		}
		const { stdout } = await curl([
			"-H",
			`Authorization: Bearer ${alpha.key}`,
			"-X",
			"POST",
			`${server.base}/v1/messages/${id}/cancel`,
		]);
		expect(JSON.parse(stdout).data).toMatchObject({ status: "failed", error_code: "CANCELLED" });
		const after = (await scrape()).text;
		const grew = (status: string) =>
			(sample(after, "as2kit_messages_total", labels(status)) ?? 0) -
			(sample(before, "as2kit_messages_total", labels(status)) ?? 0);
		expect(grew("cancelled")).toBe(1);
		expect(grew("failed")).toBe(0);
	});

	it("promtool checks the rules and runs their unit tests", async () => {
		const checked = await promtool(["check", "rules", RULES]);
		expect(checked.output).toContain("SUCCESS");
		expect(checked.code, checked.output).toBe(0);
		const tested = await promtool(["test", "rules", "as2kit-alerts.test.yml"]);
		expect(tested.code, tested.output).toBe(0);
		expect(tested.output).toContain("SUCCESS");
	});

	it("the dashboard passes the schema check and its PromQL parses (promtool, as recording rules)", async () => {
		const dashboard = v.parse(
			dashboardSchema,
			JSON.parse(readFileSync(join(EXAMPLES, "as2kit-dashboard.json"), "utf8")),
		);
		expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
		expect(dashboard.templating.list).toContainEqual(
			expect.objectContaining({ name: "datasource", type: "datasource" }),
		);
		const cells = new Set<string>();
		for (const { gridPos: g, title } of dashboard.panels) {
			for (let x = g.x; x < g.x + g.w; x++)
				for (let y = g.y; y < g.y + g.h; y++) {
					expect(cells.has(`${x},${y}`), `${title} overlaps another panel`).toBe(false);
					cells.add(`${x},${y}`);
				}
		}
		const records = dashboard.panels.flatMap((p) =>
			p.targets.map((t) => ({
				record: `as2kit_dashboard:panel_${p.id}_${t.refId}`,
				// Grafana's own variable; any range stands in for it when checking the syntax.
				expr: t.expr.replaceAll("$__rate_interval", "5m"),
			})),
		);
		const dir = mkdtempSync(join(tmpdir(), "as2kit-dashboard-rules-"));
		try {
			const file = join(dir, "dashboard-rules.json");
			// JSON is YAML: promtool reads the rule file as it is.
			writeFileSync(file, JSON.stringify({ groups: [{ name: "dashboard", rules: records }] }));
			const checked = await promtool(["check", "rules", file], dir);
			expect(checked.code, checked.output).toBe(0);
			expect(checked.output).toContain(`SUCCESS: ${records.length} rules found`);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it("every metric the rules and the dashboard name is one the running server exposes", async () => {
		const { text } = await scrape();
		const exposed = metricNames(text);
		const rules = readFileSync(RULES, "utf8")
			.split("\n")
			.filter((line) => !line.trimStart().startsWith("#"))
			.join("\n");
		const dashboard = readFileSync(join(EXAMPLES, "as2kit-dashboard.json"), "utf8");
		const named = new Set([...familiesIn(rules, exposed), ...familiesIn(dashboard, exposed)]);
		expect(named.size).toBeGreaterThan(8);
		for (const name of named) expect(exposed, `${name} is not on /metrics`).toContain(name);
		// Every instance reads these gauges from the one database: summed over instances they
		// would count the same queue N times.
		const expressions = [
			...JSON.parse(dashboard).panels.flatMap((p: { targets: { expr: string }[] }) => p.targets.map((t) => t.expr)),
			...[...rules.matchAll(/expr: (?:\|\n)?([\s\S]*?)\n\s+(?:for|labels):/g)].map((m) => m[1]!),
		];
		for (const expression of expressions) {
			if (/as2kit_(jobs|job_oldest_due_age_seconds|certificate_expiry_days)\b/.test(expression)) {
				expect(expression, "a database gauge aggregated with sum").not.toMatch(/\bsum\b/);
			}
		}
		expect(expressions.filter((e) => e.includes("as2kit_jobs")).length).toBeGreaterThan(0);
	});
});
