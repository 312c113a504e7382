import type { MessageRecord } from "@as2kit/core/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { storeMessage } from "../helpers/messages.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

// The test clock reads 2026-03-01T09:00:00Z: the default 30 days run from 2026-01-31.
let t: TestApp;
let owner: Awaited<ReturnType<typeof register>>;
let key: string;
let partner: string;
beforeEach(async () => {
	t = createTestApp({ defaultPlan: "enterprise" });
	owner = await register(t, "Statco");
	key = await createKey(t, owner.token, { scope: "tenant", tenant_id: owner.tenantId, permissions: ["partners:read"] });
	partner = await createPartner("Acme", "ACME");
});
afterEach(() => t.close());

async function createPartner(name: string, as2Id: string): Promise<string> {
	const body = { name, as2_id: as2Id, url: `https://${as2Id.toLowerCase()}.example/as2` };
	return (await t.call("POST", "/v1/partners", { token: owner.token, body })).json.data.id;
}

const instant = (iso: string, plusSeconds = 0) => new Date(Date.parse(iso) + plusSeconds * 1000);
const out = (iso: string, o: Partial<MessageRecord> = {}) =>
	storeMessage(t, owner, { partnerId: partner, createdAt: instant(iso), updatedAt: instant(iso), ...o });
const inbound = (iso: string, seconds: number, o: Partial<MessageRecord> = {}) =>
	out(iso, { direction: "inbound", status: "received", mdnStatus: "received", updatedAt: instant(iso, seconds), ...o });

/** Traffic on several days, with every kind of outcome, plus messages that must not count. */
async function seedTraffic() {
	await out("2026-03-01T08:00:00Z", {
		status: "delivered",
		mdnStatus: "received",
		deliveredAt: instant("2026-03-01T08:00:00Z", 4),
	});
	await out("2026-03-01T07:00:00Z", { status: "failed", mdnStatus: "failed", errorCode: "PARTNER_UNREACHABLE" });
	await out("2026-02-28T09:00:00Z", {
		status: "delivered",
		mdnStatus: "received",
		deliveredAt: instant("2026-02-28T09:00:00Z", 10.5),
	});
	await out("2026-02-28T10:00:00Z", { status: "sent", mdnMode: "none", mdnStatus: "none" });
	await out("2026-02-28T11:00:00Z", { status: "sent", mdnStatus: "pending" });
	await out("2026-02-28T12:00:00Z", { status: "queued" });
	await inbound("2026-02-27T09:00:00Z", 2);
	await inbound("2026-02-27T09:30:00Z", 1);
	await inbound("2026-02-27T10:00:00Z", 3, { status: "failed", errorCode: "DECRYPTION_FAILED" });
	await inbound("2026-02-15T12:00:00Z", 2);
	await inbound("2026-02-16T23:59:59Z", 2, { environment: "test" });
	// Outside the 30 days (inside 90), another partner's, another tenant's.
	await out("2026-01-30T23:59:59.999Z", {
		status: "delivered",
		deliveredAt: instant("2026-01-30T23:59:59.999Z", 1.5),
	});
	await out("2026-03-01T08:30:00Z", { partnerId: await createPartner("Other", "OTHER"), status: "failed" });
	const stranger = await register(t, "Stranger");
	await storeMessage(t, stranger, { partnerId: partner, createdAt: instant("2026-03-01T08:00:00Z") });
}

const stats = async (query = "") => {
	const response = await t.call("GET", `/v1/partners/${partner}/stats${query}`, { token: key });
	expect(response.status, response.text).toBe(200);
	return response.json.data;
};

const activity = (data: { recent_activity: { sent: number; received: number; failures: number }[] }) =>
	data.recent_activity.filter((day) => day.sent + day.received + day.failures > 0);

describe("GET /v1/partners/{partner_id}/stats", () => {
	it("answers zeros, null rates and 30 empty days for a partner without messages", async () => {
		const data = await stats();
		expect(data).toEqual({
			partner_id: partner,
			partner_name: "Acme",
			period: "30d",
			period_start: "2026-01-31T00:00:00.000000Z",
			period_end: "2026-03-01T09:00:00.000000Z",
			messages: { sent: 0, received: 0, total: 0 },
			success_rates: { outbound: null, inbound: null, overall: null },
			avg_processing_times: { outbound_seconds: null, inbound_seconds: null },
			recent_activity: expect.any(Array),
		});
		expect(data.recent_activity).toHaveLength(30);
		expect(data.recent_activity[0]).toEqual({ date: "2026-01-31", sent: 0, received: 0, failures: 0 });
		expect(data.recent_activity[29]).toEqual({ date: "2026-03-01", sent: 0, received: 0, failures: 0 });
	});

	it("counts the last 30 days of real traffic: totals, success rates of finished messages, timings, days", async () => {
		await seedTraffic();
		const data = await stats();
		expect(data).toMatchObject({
			period: "30d",
			messages: { sent: 6, received: 5, total: 11 },
			// outbound: 3 of 4 finished (delivered ×2, sent without MDN; failed ×1; sent awaiting MDN and queued left out)
			// inbound: 4 of 5; overall 7 of 9
			success_rates: { outbound: 75, inbound: 80, overall: 77.8 },
			avg_processing_times: { outbound_seconds: 7.25, inbound_seconds: 2 },
		});
		expect(activity(data)).toEqual([
			{ date: "2026-02-15", sent: 0, received: 1, failures: 0 },
			{ date: "2026-02-16", sent: 0, received: 1, failures: 0 },
			{ date: "2026-02-27", sent: 0, received: 3, failures: 1 },
			{ date: "2026-02-28", sent: 4, received: 0, failures: 0 },
			{ date: "2026-03-01", sent: 2, received: 0, failures: 1 },
		]);
		expect(data.recent_activity.map((d: { date: string }) => d.date)).toEqual(
			Array.from({ length: 30 }, (_, i) => new Date(Date.UTC(2026, 0, 31 + i)).toISOString().slice(0, 10)),
		);
	});

	it("takes period=7d and period=90d, and refuses another period with 422", async () => {
		await seedTraffic();
		const week = await stats("?period=7d");
		expect(week).toMatchObject({
			period: "7d",
			period_start: "2026-02-23T00:00:00.000000Z",
			messages: { sent: 6, received: 3, total: 9 },
			success_rates: { outbound: 75, inbound: 66.7, overall: 71.4 },
			avg_processing_times: { outbound_seconds: 7.25, inbound_seconds: 2 },
		});
		expect(week.recent_activity).toHaveLength(7);
		const quarter = await stats("?period=90d");
		expect(quarter).toMatchObject({
			period: "90d",
			period_start: "2025-12-02T00:00:00.000000Z",
			messages: { sent: 7, received: 5, total: 12 },
			success_rates: { outbound: 80, inbound: 80, overall: 80 },
			avg_processing_times: { outbound_seconds: 5.333, inbound_seconds: 2 },
		});
		expect(quarter.recent_activity).toHaveLength(90);
		expect(activity(quarter)[0]).toEqual({ date: "2026-01-30", sent: 1, received: 0, failures: 0 });
		const bad = await t.call("GET", `/v1/partners/${partner}/stats?period=1y`, { token: key });
		expect(bad.status).toBe(422);
		expect(Object.keys(bad.json.errors)).toEqual(["period"]);
	});

	it("counts an inherited partner's messages under its master id", async () => {
		const hub = { name: "Hub", as2_id: "HUB", url: "https://hub.example/as2" };
		const master = (await t.call("POST", `/v1/accounts/${owner.accountId}/partners`, { token: owner.token, body: hub }))
			.json.data.id;
		await storeMessage(t, owner, {
			partnerId: master,
			status: "delivered",
			createdAt: instant("2026-03-01T08:00:00Z"),
		});
		const response = await t.call("GET", `/v1/partners/${master}/stats`, { token: key });
		expect(response.json.data).toMatchObject({
			partner_id: master,
			partner_name: "Hub",
			messages: { sent: 1, received: 0, total: 1 },
			success_rates: { outbound: 100, inbound: null, overall: 100 },
		});
	});

	it("answers 404 for another tenant's partner and 403 without partners:read", async () => {
		const stranger = await register(t, "Stranger");
		const theirs = await t.call("GET", `/v1/partners/${partner}/stats`, { token: stranger.token });
		expect(theirs.status).toBe(404);
		expect(theirs.json.error.code).toBe("PARTNER_NOT_FOUND");
		const reader = await createKey(t, owner.token, {
			scope: "tenant",
			tenant_id: owner.tenantId,
			permissions: ["messages:read"],
		});
		expect((await t.call("GET", `/v1/partners/${partner}/stats`, { token: reader })).status).toBe(403);
	});
});

describe("message statistics in the partner's detail and configuration", () => {
	it("show the last 30 days' counts and overall success rate, and the latest message of all time", async () => {
		await seedTraffic();
		const detail = await t.call("GET", `/v1/partners/${partner}`, { token: key });
		expect(detail.json.data).toMatchObject({
			message_stats: {
				total_sent: 6,
				total_received: 5,
				success_rate: 77.8,
				last_message_at: "2026-03-01T08:00:00.000000Z",
			},
			last_message_at: "2026-03-01T08:00:00.000000Z",
		});
		const configuration = await t.call("GET", `/v1/partners/${partner}/configuration`, { token: key });
		expect(configuration.json.data.statistics).toEqual({
			messages_sent: 6,
			messages_received: 5,
			success_rate: 77.8,
			last_activity: "2026-03-01T08:00:00.000000Z",
		});
	});

	it("keep last_message_at of a partner quiet for longer than the period", async () => {
		await out("2026-01-02T10:00:00Z", { status: "delivered" });
		const detail = await t.call("GET", `/v1/partners/${partner}`, { token: key });
		expect(detail.json.data.message_stats).toEqual({
			total_sent: 0,
			total_received: 0,
			success_rate: null,
			last_message_at: "2026-01-02T10:00:00.000000Z",
		});
		expect(detail.json.data.last_message_at).toBe("2026-01-02T10:00:00.000000Z");
	});
});
