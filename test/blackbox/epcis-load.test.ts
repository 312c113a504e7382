/**
 * Issue #16, defects 2 and 11, for EPCIS: the validator reads one event whole, and an event may
 * be 8 MB (`maxEventLength`), which takes seconds of CPU in one synchronous step. On the event
 * loop that stalled `/health`, `/as2/receive` and every job for as long, in the indexing job of
 * every XML payload. The built server runs that work on a bounded pool of worker threads
 * (node/epcis-thread-pool.ts): the worst single event at the limit, read from an inbound AS2
 * payload and stored, leaves `/health` answering (hostile-input-health.ts: median under 250 ms,
 * every probe under 2.5 s, or more after a slow idle probe). On both stores: the event is
 * stored. `POST /v1/epcis/validate` and the pool's bound are epcis-validate-load.test.ts'.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, type Registered, register } from "./clients.ts";
import { EPCIS_LOAD_ENV, GIVE_UP_MS, HANG_MS, WORST_TO_READ, WORST_TO_STORE } from "./epcis-load-documents.ts";
import { expectHealthy, watchHealth } from "./hostile-input-health.ts";

const PEER = "EPCISLOADPEER";

let server: BuiltServer;
let user: Registered;
let tenantAs2Id: string;

beforeAll(async () => {
	server = await startBuiltServer({ env: EPCIS_LOAD_ENV });
	user = await register(server.base);
	tenantAs2Id = (await call(server.base, "GET", `/v1/tenants/${user.tenantId}`, { token: user.token })).json.data
		.as2_id;
	const partner = await call(server.base, "POST", "/v1/partners", {
		token: user.token,
		body: { name: "EPCIS Load Peer", as2_id: PEER, url: "https://peer.example/as2", sign: false, encrypt: false },
	});
	expect(partner.status, partner.text).toBe(201);
});
afterAll(() => server?.stop());

describe("EPCIS work never holds the event loop", () => {
	for (const [what, document] of [
		["the slowest event to read", WORST_TO_READ],
		["the costliest event to store", WORST_TO_STORE],
	] as const) {
		it(`indexes ${what} at maxEventLength, from an inbound AS2 payload, while /health keeps answering`, {
			timeout: HANG_MS,
		}, async () => {
			const eventId = `ev:inbound-${what.split(" ")[1]}`;
			const health = await watchHealth(server.base);
			const received = await fetch(`${server.base}/as2/receive`, {
				method: "POST",
				headers: {
					"as2-to": tenantAs2Id,
					"as2-from": PEER,
					"as2-version": "1.2",
					"message-id": `<epcis-load-${Date.now()}@peer.example>`,
					"content-type": "application/xml",
				},
				body: document(eventId),
				signal: AbortSignal.timeout(GIVE_UP_MS),
			});
			expect(received.status, await received.text()).toBe(200);
			await indexed(eventId);
			expectHealthy(await health.stop(), `${what} indexed from /as2/receive`);
			const query = await call(server.base, "POST", "/v1/epcis/query", {
				token: user.token,
				body: { query_type: "SimpleEventQuery", parameters: { EQ_eventID: eventId } },
				timeoutMs: GIVE_UP_MS,
			});
			expect(query.json.data).toEqual([expect.objectContaining({ eventID: eventId, type: "ObjectEvent" })]);
			server.assertAlive();
		});
	}
});

/**
 * Waits (bounded) until the event is indexed. The page asked for lies past the one event, so
 * the answer counts it without carrying it: the 8 MB event is fetched once, after the watch.
 */
async function indexed(eventId: string): Promise<void> {
	const deadline = Date.now() + GIVE_UP_MS;
	for (;;) {
		const query = await call(server.base, "POST", "/v1/epcis/query?page=2&per_page=1", {
			token: user.token,
			body: { query_type: "SimpleEventQuery", parameters: { EQ_eventID: eventId } },
		});
		expect(query.status, query.text).toBe(200);
		if (query.json.pagination.total === 1) return;
		if (Date.now() > deadline) throw new Error(`${eventId} was not indexed within ${GIVE_UP_MS} ms`);
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}
