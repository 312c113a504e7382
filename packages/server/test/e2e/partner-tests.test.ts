import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addPartner, startPair } from "../helpers/peers.ts";

/** POST /v1/partners/{id}/test `mdn` and `full` against the project's own AS2 receiver. */
let pair: Awaited<ReturnType<typeof startPair>>;
let partnerOnA: string;

beforeAll(async () => {
	pair = await startPair({ AS2_RECEIVE_BURST: "5", AS2_RECEIVE_PER_SECOND: "0.001" });
	partnerOnA = await addPartner(pair.a, pair.b, pair.pki, {
		sign: true,
		encrypt: true,
		compress: true,
		mdn_mode: "async",
	});
	await addPartner(pair.b, pair.a, pair.pki);
});
afterAll(() => pair.close());

describe("partner tests over real AS2", () => {
	it("mdn: builds with the partner's settings, transmits, and verifies the sync MDN's signature and MIC", async () => {
		const response = await pair.a.call("POST", `/v1/partners/${partnerOnA}/test`, { test_type: "mdn" });
		expect(response.status).toBe(200);
		expect(response.json.success, response.text).toBe(true);
		expect(response.json.data.timeline.map((s: { step: string; status: string }) => [s.step, s.status])).toEqual([
			["build", "success"],
			["transmit", "success"],
			["mdn", "success"],
		]);
		expect(response.json.data.results.as2_protocol).toMatchObject({
			signed: true,
			signature_valid: true,
			mic_matches: true,
		});
		expect(response.json.data.timeline[0].details).toMatchObject({ signed: true, encrypted: true, compressed: true });
		// A connectivity test is not a message: B's history has the test message, A's has none.
		expect((await pair.a.server.store.messages.list(pair.a.tenantId, {}, { page: 1, perPage: 5 })).total).toBe(0);
		const detail = await pair.a.call("GET", `/v1/partners/${partnerOnA}`);
		expect(detail.json.data.connection_status.last_test_result).toBe("success");
	});

	it("full: ping then mdn, one timeline", async () => {
		const response = await pair.a.call("POST", `/v1/partners/${partnerOnA}/test`, { test_type: "full" });
		expect(response.json.data.timeline.map((s: { step: string }) => s.step)).toEqual([
			"dns",
			"tcp",
			"tls",
			"build",
			"transmit",
			"mdn",
		]);
		expect(response.json.success).toBe(true);
	});

	it("mdn: a failure says which step failed", async () => {
		const certs = (await pair.a.call("GET", `/v1/partners/${partnerOnA}/certificates`)).json.data;
		for (const c of certs) await pair.a.call("POST", `/v1/certificates/${c.id}/deactivate`);
		try {
			const response = await pair.a.call("POST", `/v1/partners/${partnerOnA}/test`, { test_type: "mdn" });
			expect(response.json.success).toBe(false);
			expect(response.json.data.timeline).toEqual([expect.objectContaining({ step: "build", status: "failure" })]);
			expect(response.json.data.results.error).toMatch(/encryption certificate/);
		} finally {
			for (const c of certs) await pair.a.call("POST", `/v1/certificates/${c.id}/activate`);
		}
	});
});

describe("/as2/receive per-partner limits", () => {
	it("answers 429 with Retry-After when one partner sends past its budget, independent of API traffic", async () => {
		const post = () =>
			pair.b.server.app.request("/as2/receive", {
				method: "POST",
				headers: {
					"as2-from": pair.a.as2Id,
					"as2-to": pair.b.as2Id,
					"message-id": `<${Math.random()}@x>`,
					"content-type": "text/plain",
				},
				body: "hello",
			});
		const statuses: number[] = [];
		for (let i = 0; i < 8; i++) statuses.push((await post()).status);
		expect(statuses).toContain(429);
		const limited = await post();
		expect(limited.status).toBe(429);
		expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
		expect((await pair.b.call("GET", "/v1/partners")).status).toBe(200);
	});
});
