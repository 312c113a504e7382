import type { UsageStore } from "@as2kit/core/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { liveBlobsUnder } from "../helpers/live-blobs.ts";
import { createTestApp, liveTenantWithBuyer, type TestApp } from "../helpers/test-app.ts";

// The monthly allowance under concurrency: two sends for the last free message. Runs on SQLite
// (project "all") and on PostgreSQL (project "rest-on-postgresql").

let t: TestApp;
let owner: Awaited<ReturnType<typeof liveTenantWithBuyer>>["owner"];
let key: string;

beforeEach(async () => {
	t = createTestApp();
	({ owner, key } = await liveTenantWithBuyer(t, "Racer"));
});
afterEach(() => t.close());

/**
 * Holds every read of the month's live_messages until `parties` reads have been answered: each
 * submission has then passed its allowance check before any goes on to write its message.
 * Bounded: a party that never comes fails the waiting ones after 20 s.
 */
function holdAllowanceReadsTogether(usage: UsageStore, parties: number): () => void {
	const original = usage.get;
	let arrived = 0;
	let release!: () => void;
	const together = new Promise<void>((resolve) => {
		release = resolve;
	});
	usage.get = async (options) => {
		const value = await original.call(usage, options);
		if (options.metric !== "live_messages") return value;
		arrived += 1;
		if (arrived === parties) release();
		let timer: NodeJS.Timeout | undefined;
		const timeout = new Promise<never>((_, reject) => {
			timer = setTimeout(() => reject(new Error(`only ${arrived} of ${parties} allowance checks came`)), 20_000);
		});
		await Promise.race([together, timeout]).finally(() => clearTimeout(timer));
		return value;
	};
	return () => {
		usage.get = original;
	};
}

const send = (content: string) =>
	t.call("POST", "/v1/messages", {
		token: key,
		body: { partner_id: "prt_000001", content_type: "application/edi-x12", payload: { content } },
	});

describe("the monthly allowance under concurrent sends", () => {
	it("accepts exactly one of two sends racing for the last free message and refuses the other with 402", async () => {
		const counter = { accountId: owner.accountId, period: "2026-03", metric: "live_messages" };
		await t.store.usage.increment({ ...counter, by: 999 });
		const restore = holdAllowanceReadsTogether(t.store.usage, 2);
		let answers: Awaited<ReturnType<typeof send>>[];
		try {
			answers = await Promise.all([send("ISA*01*~"), send("ISA*02*~")]);
		} finally {
			restore();
		}
		const statuses = answers.map((a) => a.status).sort();
		expect(statuses, answers.map((a) => a.text).join("\n")).toEqual([202, 402]);
		const refused = answers.find((a) => a.status === 402)!;
		expect(refused.json.error).toMatchObject({
			type: "billing_error",
			code: "MESSAGE_LIMIT_EXCEEDED",
			details: {
				current_usage: 1000,
				plan_limit: 1000,
				plan: expect.any(String),
				billing_period: { start: "2026-03-01T00:00:00.000000Z", end: "2026-03-31T23:59:59.999000Z" },
			},
		});
		// The month stops at its allowance; nothing of the refused message stays.
		expect(await t.store.usage.get(counter)).toBe(1000);
		expect((await t.store.messages.list(owner.tenantId, {}, { page: 1, perPage: 10 })).total).toBe(1);
		expect(await t.store.jobs.list({ kind: "message.send" })).toHaveLength(1);
		const events = await t.store.events.list({ accountId: owner.accountId });
		expect(events.filter((e) => e.kind === "message.queued")).toHaveLength(1);
		const [exceeded, ...more] = events.filter((e) => e.kind === "billing.limit_exceeded");
		expect(more).toEqual([]);
		expect(exceeded?.data).toEqual({
			account_id: owner.accountId,
			resource_type: "live_messages",
			current_usage: 1000,
			plan_limit: 1000,
			overage_amount: 1,
			billing_period: { start: "2026-03-01T00:00:00.000000Z", end: "2026-03-31T23:59:59.999000Z" },
		});
		// Each threshold fired once, for the accepted message.
		const thresholds = events
			.filter((e) => e.kind === "billing.usage_threshold")
			.map((e) => Number(e.data.threshold_percentage));
		expect(thresholds.sort((a, b) => a - b)).toEqual([75, 90, 100]);
		expect(liveBlobsUnder(t.blobDir)).toHaveLength(1);
	});
});
