import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sample } from "../helpers/metrics-text.ts";
import { createTestApp, register, type TestApp } from "../helpers/test-app.ts";

/**
 * Issue #18, Metrics: `/as2/receive` answers that are not processing, counted by reason in
 * `as2kit_inbound_refusals_total` — here the rate limit (429) and an over-long message (413),
 * at a receive budget of two requests (AS2_RECEIVE_BURST).
 */
let t: TestApp;
let as2Id: string;

beforeAll(async () => {
	t = createTestApp({ receiveBurst: 2, receivePerSecond: 0.001 }, undefined, { metrics: true });
	const { token, tenantId } = await register(t);
	as2Id = (await t.call("GET", `/v1/tenants/${tenantId}`, { token })).json.data.as2_id;
	const partner = await t.call("POST", "/v1/partners", {
		token,
		body: { name: "Sender", as2_id: "SENDER", url: "https://sender.example/as2" },
	});
	expect(partner.status, partner.text).toBe(201);
});
afterAll(() => t.close());

const refusals = async (reason: string) =>
	sample((await t.call("GET", "/metrics")).text, "as2kit_inbound_refusals_total", { reason }) ?? 0;

const post = (from: string, headers: Record<string, string> = {}) =>
	t.app.request("/as2/receive", {
		method: "POST",
		headers: { "as2-to": as2Id, "as2-from": from, "message-id": "<m@sender.example>", ...headers },
		body: "x",
	});

describe("inbound refusals by reason", () => {
	it("413: a Content-Length over the plan's limit", async () => {
		const response = await post("SENDER", { "content-length": String(10 ** 12) });
		expect(response.status).toBe(413);
		expect(await refusals("too_large")).toBe(1);
	});

	it("429: past the receive budget, and not counted as anything else", async () => {
		const statuses: number[] = [];
		for (let i = 0; i < 3; i++) statuses.push((await post("SENDER")).status);
		expect(statuses.at(-1)).toBe(429);
		expect(await refusals("rate_limited")).toBe(statuses.filter((s) => s === 429).length);
		expect(await refusals("busy")).toBe(0);
	});
});
