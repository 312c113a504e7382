/**
 * The hand-off of a submitted message's send job to the submitting instance's worker (issue
 * #20), against the built server over real sockets, on SQLite and PostgreSQL. The worker has
 * two slots, so a burst mixes jobs run in a slot with jobs queued for a poll: every message is
 * sent once. Clients that abort, send malformed bodies or forge keys hold no slot: the server
 * goes on sending, and drains at once on SIGTERM (a slot left held would make it wait).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type QuirkyPartners, startQuirkyPartners } from "../../packages/server/test/helpers/quirky-partner.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, curl, liveTenant, rawRequest } from "./clients.ts";

const PARTNER_AS2_ID = "bb-hand-off-partner";
let server: BuiltServer;
let partners: QuirkyPartners;
let liveKey: string;
let partnerId: string;

beforeAll(async () => {
	partners = await startQuirkyPartners();
	// A partner that takes every message and asks for no MDN: the sends themselves are under test.
	partners.answer(PARTNER_AS2_ID, () => ({ status: 200, body: "" }));
	server = await startBuiltServer({
		env: {
			AS2_ALLOW_HTTP: "1",
			AS2_ALLOW_PRIVATE_TARGETS: "1",
			AS2_DEFAULT_PLAN: "professional",
			AS2_WORKER_CONCURRENCY: "2",
		},
	});
	({ liveKey } = await liveTenant(server.base));
	const created = await call(server.base, "POST", "/v1/partners", {
		token: liveKey,
		body: {
			name: "hand-off",
			as2_id: PARTNER_AS2_ID,
			url: partners.url,
			sign: false,
			encrypt: false,
			mdn_mode: "none",
		},
	});
	expect(created.status, created.text).toBe(201);
	partnerId = created.json.data.id;
});
afterAll(async () => {
	await server?.stop();
	await partners?.close();
});

const messageBody = (n: number, extra: Record<string, unknown> = {}) =>
	JSON.stringify({
		partner_id: partnerId,
		content_type: "application/edi-x12",
		payload: { content: `ISA*00*HANDOFF${n}~\r\n` },
		...extra,
	});

const viaFetch = async (n: number): Promise<string> => {
	const sent = await call(server.base, "POST", "/v1/messages", { token: liveKey, body: JSON.parse(messageBody(n)) });
	expect(sent.status, sent.text).toBe(202);
	return sent.json.data.id;
};
const viaCurl = async (n: number): Promise<string> => {
	const { stdout, code } = await curl([
		"-X",
		"POST",
		"-H",
		`authorization: Bearer ${liveKey}`,
		"-H",
		"content-type: application/json",
		"--data-binary",
		messageBody(n),
		`${server.base}/v1/messages`,
	]);
	expect(code, stdout).toBe(0);
	return JSON.parse(stdout).data.id;
};
const viaSocket = async (n: number): Promise<string> => {
	const body = messageBody(n);
	const response = await rawRequest(
		server.port,
		`POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${liveKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
		[body],
	);
	expect(response.status, response.raw).toBe(202);
	return JSON.parse(response.raw.slice(response.raw.indexOf("\r\n\r\n") + 4)).data.id;
};

/** Bounded polling (60 s) until every message has left `queued`/`sending`; their details. */
// biome-ignore lint/suspicious/noExplicitAny: message details as JSON
async function allSent(ids: string[]): Promise<any[]> {
	for (let i = 0; i < 600; i++) {
		const details = await Promise.all(
			ids.map(async (id) => (await call(server.base, "GET", `/v1/messages/${id}`, { token: liveKey })).json.data),
		);
		if (details.every((m) => m.status === "sent" || m.status === "failed")) return details;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	throw new Error("the messages were not sent in 60 s");
}

describe("send jobs handed to the local worker", () => {
	it("sends each message of a burst from fetch, curl and raw sockets once, past a worker with two slots", async () => {
		const before = partners.requests(PARTNER_AS2_ID).length;
		const ids = await Promise.all([
			...Array.from({ length: 16 }, (_, n) => viaFetch(n)),
			...Array.from({ length: 2 }, (_, n) => viaCurl(100 + n)),
			...Array.from({ length: 2 }, (_, n) => viaSocket(200 + n)),
		]);
		const details = await allSent(ids);
		expect(details.map((m) => m.status)).toEqual(ids.map(() => "sent"));
		const requests = partners.requests(PARTNER_AS2_ID).slice(before);
		const received = requests.map((request) => String(request.headers["message-id"]).replace(/^<|>$/g, ""));
		expect(received.sort()).toEqual(details.map((m) => m.message_id).sort());
		// Each carries its own submission's payload: the send jobs build from the bytes their
		// submissions held (issue #20), never another message's.
		const numbers = [...Array.from({ length: 16 }, (_, n) => n), 100, 101, 200, 201];
		const payloadOf = new Map(details.map((m, i) => [m.message_id, `ISA*00*HANDOFF${numbers[i]}~\r\n`]));
		for (const request of requests) {
			const messageId = String(request.headers["message-id"]).replace(/^<|>$/g, "");
			expect(request.raw.toString("latin1")).toContain(payloadOf.get(messageId));
		}
	});

	it("leaves a scheduled message unheld: cancelled at once, never sent", async () => {
		const scheduledAt = new Date(Date.now() + 3600_000).toISOString();
		const queued = await call(server.base, "POST", "/v1/messages", {
			token: liveKey,
			body: JSON.parse(messageBody(300, { scheduled_at: scheduledAt })),
		});
		expect(queued.status, queued.text).toBe(202);
		const cancelled = await call(server.base, "POST", `/v1/messages/${queued.json.data.id}/cancel`, {
			token: liveKey,
		});
		expect(cancelled.status, cancelled.text).toBe(200);
		expect(cancelled.json.data).toMatchObject({ status: "failed", error_code: "CANCELLED" });
	});

	it("holds no slot for aborted, malformed or forged submissions, and drains at once on SIGTERM", async () => {
		const head = (length: number, token = liveKey) =>
			`POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
		const body = messageBody(400);
		// Aborted mid-body (reset), cut short (closed), malformed JSON, a forged key: none is queued.
		const hostile = await Promise.all([
			...Array.from({ length: 4 }, () =>
				rawRequest(server.port, head(body.length), [body.slice(0, 20)], { resetAfterWrite: true }),
			),
			call(server.base, "POST", "/v1/messages", {
				token: liveKey,
				body: "{not json",
				headers: { "content-type": "application/json" },
			}),
			call(server.base, "POST", "/v1/messages", { token: "as2_live_forged", body: JSON.parse(messageBody(401)) }),
		]);
		expect(hostile.slice(4).map((r) => r.status)).toEqual([400, 401]);
		// Both slots are still there: two messages at once are sent.
		const ids = await Promise.all([viaFetch(402), viaFetch(403)]);
		expect((await allSent(ids)).map((m) => m.status)).toEqual(["sent", "sent"]);
		await server.stop();
		// Exited by itself (code 0) within the drain, not killed after the stop's deadline.
		expect(server.exit()).toEqual({ code: 0, signal: null });
	});
});
