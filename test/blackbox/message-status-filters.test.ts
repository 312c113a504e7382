/**
 * `GET /v1/messages` filtered by status and MDN status on the built server, as clients call it
 * (fetch, curl, a raw socket) and with hostile queries. On PostgreSQL those filters read the
 * narrow `message_states` table that the moves write (stop 33), so this file, which runs on
 * both stores (the blackbox-on-postgresql project), checks that a message moved by the worker
 * leaves `queued` and is listed under its new status, and that a page past the end is empty
 * with the true total.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type QuirkyPartners, startQuirkyPartners } from "../../packages/server/test/helpers/quirky-partner.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, curl, liveTenant, plainPartner, rawRequest } from "./clients.ts";

const PARTNER_AS2_ID = "bb-status-filters";
let server: BuiltServer;
let partners: QuirkyPartners;
let liveKey: string;
let partnerId: string;
/** Sent now: the worker moves them out of `queued`. */
const sentIds: string[] = [];
/** Due in an hour: they stay `queued`. */
const laterIds: string[] = [];
let sentStatus: string;

const list = async (query: string) => {
	const response = await call(server.base, "GET", `/v1/messages?${query}`, { token: liveKey });
	expect(response.status, response.text).toBe(200);
	return response.json as { data: { id: string; status: string }[]; pagination: { total: number } };
};

beforeAll(async () => {
	partners = await startQuirkyPartners();
	// Takes every message and asks for no MDN: the states the worker moves them through are under test.
	partners.answer(PARTNER_AS2_ID, () => ({ status: 200, body: "" }));
	server = await startBuiltServer({
		env: { AS2_ALLOW_HTTP: "1", AS2_ALLOW_PRIVATE_TARGETS: "1", AS2_DEFAULT_PLAN: "professional" },
	});
	({ liveKey } = await liveTenant(server.base));
	partnerId = await plainPartner(server.base, liveKey, { name: "filters", as2Id: PARTNER_AS2_ID, url: partners.url });
	const submit = async (extra: Record<string, unknown>) => {
		const sent = await call(server.base, "POST", "/v1/messages", {
			token: liveKey,
			body: { partner_id: partnerId, content_type: "application/edi-x12", payload: { content: "ISA*00*F~" }, ...extra },
		});
		expect(sent.status, sent.text).toBe(202);
		return sent.json.data.id as string;
	};
	for (let i = 0; i < 3; i++) sentIds.push(await submit({}));
	const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
	for (let i = 0; i < 2; i++) laterIds.push(await submit({ scheduled_at: inAnHour }));
	// Bounded: every sent message has left queued and processing within 30 s, or the setup fails.
	for (let tries = 0; ; tries++) {
		const statuses = await Promise.all(
			sentIds.map(
				async (id) => (await call(server.base, "GET", `/v1/messages/${id}`, { token: liveKey })).json.data.status,
			),
		);
		if (statuses.every((status) => status !== "queued" && status !== "processing")) {
			expect(new Set(statuses).size, statuses.join()).toBe(1);
			sentStatus = statuses[0];
			break;
		}
		if (tries >= 300) throw new Error(`messages still moving: ${statuses.join()}`);
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
});
afterAll(async () => {
	await server?.stop();
	await partners?.close();
});

describe("GET /v1/messages by status, on the built server", () => {
	it("lists the moved messages under their new status and no longer under queued (fetch)", async () => {
		expect(["sent", "delivered"]).toContain(sentStatus);
		const moved = await list(`status=${sentStatus}&partner_id=${partnerId}`);
		expect(moved.data.map((m) => m.id).sort()).toEqual([...sentIds].sort());
		expect(moved.pagination.total).toBe(3);
		const queued = await list("status=queued");
		expect(queued.data.map((m) => m.id).sort()).toEqual([...laterIds].sort());
		expect(queued.pagination.total).toBe(2);
		const none = await list("status=failed");
		expect([none.data, none.pagination.total]).toEqual([[], 0]);
	});

	it("filters by MDN status with paging, and a page past the end is empty with the true total (curl)", async () => {
		const { stdout, code } = await curl([
			"-s",
			"-H",
			`authorization: Bearer ${liveKey}`,
			`${server.base}/v1/messages?mdn_status=none&status=queued&per_page=1&page=2`,
		]);
		expect(code, stdout).toBe(0);
		const page = JSON.parse(stdout);
		expect(page.data).toHaveLength(1);
		expect(laterIds).toContain(page.data[0].id);
		expect(page.pagination.total).toBe(2);
		const past = await list("status=queued&page=50");
		expect([past.data, past.pagination.total]).toEqual([[], 2]);
		const nothingPast = await list("status=failed&page=2");
		expect([nothingPast.data, nothingPast.pagination.total]).toEqual([[], 0]);
	});

	it("answers 422 VALIDATION_FAILED for a status or MDN status that does not exist, over a raw socket", async () => {
		for (const query of ["status=lost", "mdn_status=maybe", "status=queued%27%20or%201=1--", "page=0"]) {
			const response = await rawRequest(
				server.port,
				`GET /v1/messages?${query} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${liveKey}\r\nConnection: close\r\n\r\n`,
				[],
			);
			expect(response.status, `${query}: ${response.raw}`).toBe(422);
			expect(response.raw).toContain('"code":"VALIDATION_FAILED"');
		}
	});
});
