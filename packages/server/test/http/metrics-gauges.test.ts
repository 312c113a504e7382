import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Logger } from "../../src/service/deps.ts";
import { sample } from "../helpers/metrics-text.ts";
import { createTestApp, register, type TestApp } from "../helpers/test-app.ts";

/**
 * Issue #18, Metrics: the gauges `/metrics` reads from the store at each scrape — the job
 * queue per kind and the days to the soonest certificate expiry per tenant — on an app with
 * no worker, so the queue holds exactly what the test put in it (SQLite here, PostgreSQL in
 * the rest-on-postgresql project).
 */
let t: TestApp;
const warnings: string[] = [];
const logger: Logger = {
	debug() {},
	info() {},
	warn(_object, message) {
		warnings.push(message ?? "");
	},
	error() {},
	child() {
		return logger;
	},
};

beforeEach(() => {
	warnings.length = 0;
	t = createTestApp({}, undefined, { logger });
});
afterEach(() => t.close());

const scrape = async () => {
	const response = await t.call("GET", "/metrics");
	expect(response.status).toBe(200);
	return response.text;
};

describe("GET /metrics: gauges read at scrape time", () => {
	it("the job queue per kind: due, scheduled and running jobs, and the oldest due job's age", async () => {
		const now = t.clock.now();
		const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
		await t.store.jobs.enqueue({ kind: "metrics.test", payload: {}, runAt: ago(90) }, ago(90));
		await t.store.jobs.enqueue({ kind: "metrics.test", payload: {}, runAt: ago(30) }, ago(30));
		await t.store.jobs.enqueue({ kind: "metrics.test", payload: {}, runAt: ago(-600) }, now);
		await t.store.jobs.enqueue({ kind: "metrics.held", payload: {}, runAt: ago(5) }, now);
		await t.store.jobs.claim({ kinds: ["metrics.held"], workerId: "w", leaseMs: 60_000, limit: 1, now });
		let text = await scrape();
		const jobs = (kind: string, state: string) => sample(text, "as2kit_jobs", { kind, state });
		expect([jobs("metrics.test", "due"), jobs("metrics.test", "scheduled"), jobs("metrics.test", "running")]).toEqual([
			2, 1, 0,
		]);
		expect([jobs("metrics.held", "due"), jobs("metrics.held", "running")]).toEqual([0, 1]);
		expect(sample(text, "as2kit_job_oldest_due_age_seconds", { kind: "metrics.test" })).toBe(90);
		expect(sample(text, "as2kit_job_oldest_due_age_seconds", { kind: "metrics.held" })).toBe(0);

		// Read afresh at every scrape: the clock moved, the queue aged.
		t.clock.advance(60);
		text = await scrape();
		expect(sample(text, "as2kit_job_oldest_due_age_seconds", { kind: "metrics.test" })).toBe(150);
	});

	it("days to the soonest active certificate expiry, per tenant", async () => {
		const { token, tenantId, accountId } = await register(t);
		const identity = (await t.call("GET", "/v1/certificates?type=identity", { token })).json.data[0];
		const days = (Date.parse(identity.expires_at) - t.clock.now().getTime()) / 86_400_000;
		const text = await scrape();
		expect(
			sample(text, "as2kit_certificate_expiry_days", { account_id: accountId, tenant_id: tenantId, owner: "tenant" }),
		).toBeCloseTo(days, 6);
	});

	it("a store that cannot be read leaves the gauges empty for that scrape, logged, not a failed /metrics", async () => {
		await t.call("GET", "/health");
		const original = t.store.jobs.depth;
		t.store.jobs.depth = () => Promise.reject(new Error("database unavailable"));
		try {
			const text = await scrape();
			expect(text).toContain("# TYPE as2kit_jobs gauge");
			expect(sample(text, "as2kit_jobs")).toBeUndefined();
			expect(text).toContain("as2kit_http_requests_total");
			expect(warnings).toContain("metrics: cannot read the job queue");
		} finally {
			t.store.jobs.depth = original;
		}
	});
});
