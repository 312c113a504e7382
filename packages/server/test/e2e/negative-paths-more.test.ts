import { readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingPeriod } from "../../src/service/billing/usage.ts";
import {
	addPartner,
	type Peer,
	sendMessage,
	settled,
	startPair,
	startPeer,
	withImpostorCertificate,
} from "../helpers/peers.ts";
import { createTestPki, type TestPki } from "../helpers/tls.ts";
import { eventually } from "../helpers/worker.ts";

/**
 * More negative paths between two real servers: async MDNs that must be retried to reach
 * the sender, negative async MDNs, the AS2 Message-ID the partner sees on every attempt,
 * usage counted for received messages, and the per-partner inbound limit.
 * Retries are one second apart here (AS2_SEND_RETRY_DELAYS=0,1,1,1,1).
 */
let pair: Awaited<ReturnType<typeof startPair>>;
let partnerOnA: string;
let partnerOnB: string;
const relays: Server[] = [];

beforeAll(async () => {
	pair = await startPair({ AS2_SEND_RETRY_DELAYS: "0,1,1,1,1" });
	partnerOnA = await addPartner(pair.a, pair.b, pair.pki, { mdn_mode: "sync" });
	partnerOnB = await addPartner(pair.b, pair.a, pair.pki);
});
afterAll(async () => {
	for (const relay of relays) {
		relay.closeAllConnections();
		await new Promise((resolve) => relay.close(resolve));
	}
	await pair.close();
});

interface Seen {
	messageId: string | undefined;
	contentType: string | undefined;
	body: string;
	answered: string;
}

/**
 * An HTTPS endpoint (the test CA's certificate) in front of `target`'s `/as2/receive` that
 * records every POST it receives, answers the first ones from `script` ("reset": the
 * connection dies without an answer; a number: that HTTP status), and forwards the rest to
 * the target, returning the target's answer as it is.
 */
async function relay(target: Peer, script: Array<"reset" | number>) {
	const seen: Seen[] = [];
	const server = createServer(
		{ cert: readFileSync(pair.pki.certPath), key: readFileSync(pair.pki.keyPath) },
		(req, res) => {
			const chunks: Buffer[] = [];
			req.on("data", (chunk: Buffer) => chunks.push(chunk));
			req.on("end", async () => {
				const body = Buffer.concat(chunks);
				const step = script.shift();
				seen.push({
					messageId: req.headers["message-id"] as string | undefined,
					contentType: req.headers["content-type"],
					body: body.toString("latin1"),
					answered: step === undefined ? "forwarded" : String(step),
				});
				if (step === "reset") {
					req.socket.destroy();
					return;
				}
				if (typeof step === "number") {
					res.writeHead(step, { "content-type": "text/plain" }).end("not now");
					return;
				}
				const headers = new Headers();
				for (const [name, value] of Object.entries(req.headers)) {
					if (["host", "connection", "transfer-encoding", "keep-alive", "content-length"].includes(name)) continue;
					if (typeof value === "string") headers.set(name, value);
				}
				headers.set("content-length", String(body.byteLength));
				const answer = await target.server.app.request("/as2/receive", { method: "POST", headers, body });
				const out = Buffer.from(await answer.arrayBuffer());
				res.writeHead(answer.status, Object.fromEntries(answer.headers)).end(out);
			});
		},
	);
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	relays.push(server);
	return { url: `https://127.0.0.1:${(server.address() as { port: number }).port}/as2/receive`, seen };
}

const send = (overrides: Record<string, unknown> = {}, from: Peer = pair.a, partner = partnerOnA) =>
	sendMessage(from, partner, overrides);

const eventsOf = async (peer: Peer) => peer.server.store.events.list({ accountId: peer.accountId, limit: 100_000 });
const kinds = async (peer: Peer, id: string) =>
	(await eventsOf(peer)).filter((e) => e.data.id === id).map((e) => e.kind);
const inboundOf = (peer: Peer, messageId: string) =>
	peer.server.store.messages.findByMessageId(peer.tenantId, messageId, { direction: "inbound" });

/** Points A's Receipt-Delivery-Option for B at `url` (null: A's own /as2/receive) for the test's duration. */
async function mdnUrl(url: string | null) {
	const patched = await pair.a.call("PATCH", `/v1/partners/${partnerOnA}`, { mdn: { url } });
	expect(patched.status, patched.text).toBe(200);
}

describe("async MDNs", () => {
	it("B's async MDN is retried while A is unreachable (reset, then 500) until it arrives: A delivered", async () => {
		const receipts = await relay(pair.a, ["reset", 500]);
		await mdnUrl(receipts.url);
		try {
			const id = await send({ mdn_mode: "async" });
			const delivered = await settled(pair.a, id);
			expect(delivered, `${delivered.errorCode} ${delivered.errorMessage}`).toMatchObject({
				status: "delivered",
				mdnStatus: "received",
			});
			expect(delivered.mdnData).toMatchObject({ signed: true, signatureValid: true, micMatches: true });
			expect(delivered.mdnData?.disposition).toMatch(/processed$/);
			// Three POSTs reached A's side: the reset one, the 500 one, and the one forwarded to A.
			expect(receipts.seen.map((s) => s.answered)).toEqual(["reset", "500", "forwarded"]);
			for (const post of receipts.seen) {
				expect(post.contentType).toMatch(/^multipart\/(signed|report)/);
				expect(post.body).toContain(`<${delivered.messageId}>`);
			}
			expect(await kinds(pair.a, id)).toEqual(["message.queued", "message.sent", "message.delivered"]);
			// B's copy: received once, its MDN marked sent to the partner once it arrived.
			const inbound = await eventually(async () => {
				const m = await inboundOf(pair.b, delivered.messageId);
				return m?.mdnStatus === "received" ? m : null;
			}, "B's MDN status to be received");
			expect(inbound).toMatchObject({ status: "received", mdnMode: "async" });
			expect(await kinds(pair.b, inbound.id)).toEqual(["message.received"]);
			// …and the MDN job is done (completed just after the handler returned).
			await eventually(
				async () => (await pair.b.server.store.jobs.list({ kind: "mdn.send" })).length === 0,
				"B's mdn.send job to complete",
			);
		} finally {
			await mdnUrl(null);
		}
	});

	it("an async MDN that never gets through: B gives up after the retries (mdn_status failed), A still waits", async () => {
		const receipts = await relay(pair.a, [500, 500, 500, 500, 500, 500, 500, 500]);
		await mdnUrl(receipts.url);
		try {
			const id = await send({ mdn_mode: "async" });
			const sent = await settled(pair.a, id, ["sent", "delivered", "failed"]);
			const inbound = await eventually(
				async () => {
					const m = await inboundOf(pair.b, sent.messageId);
					return m?.mdnStatus === "failed" ? m : null;
				},
				"B to give up on the MDN",
				60_000,
			);
			expect(inbound.status).toBe("received");
			// AS2_SEND_RETRY_DELAYS has five entries: five attempts, then no more.
			expect(receipts.seen).toHaveLength(5);
			expect(await pair.a.server.store.messages.get(pair.a.tenantId, id)).toMatchObject({
				status: "sent",
				mdnStatus: "pending",
			});
		} finally {
			await mdnUrl(null);
		}
	});

	it("a negative async MDN (B cannot verify A's signature) reaches A, after a retry: failed AUTHENTICATION_FAILED", async () => {
		await withImpostorCertificate(pair.b, partnerOnB, "impostor-async", async () => {
			// The MDN comes through the relay, refused once: A has surely recorded `sent` when it lands.
			const receipts = await relay(pair.a, [503]);
			await mdnUrl(receipts.url);
			try {
				const bEventsBefore = (await eventsOf(pair.b)).length;
				const id = await send({ mdn_mode: "async", encrypt: false });
				const failed = await settled(pair.a, id);
				expect(failed).toMatchObject({ status: "failed", errorCode: "AUTHENTICATION_FAILED", mdnStatus: "received" });
				expect(failed.mdnData?.disposition).toMatch(/processed\/error: authentication-failed/);
				expect(failed.mdnData).toMatchObject({
					signed: true,
					signatureValid: true,
					originalMessageId: failed.messageId,
				});
				expect(receipts.seen.map((s) => s.answered)).toEqual(["503", "forwarded"]);
				expect(await kinds(pair.a, id)).toEqual(["message.queued", "message.sent", "message.failed"]);
				const failedEvent = (await eventsOf(pair.a)).find((e) => e.kind === "message.failed" && e.data.id === id);
				expect(failedEvent?.data).toMatchObject({ status: "failed", error_code: "AUTHENTICATION_FAILED" });
				// B stored nothing and wrote no event.
				expect(await inboundOf(pair.b, failed.messageId)).toBeNull();
				expect((await eventsOf(pair.b)).length).toBe(bEventsBefore);
			} finally {
				await mdnUrl(null);
			}
		});
	});
});

describe("retries keep the AS2 Message-ID", () => {
	it("every POST B's side receives (reset, 503, 500, then B itself) carries the same Message-ID", async () => {
		const front = await relay(pair.b, ["reset", 503, 500]);
		await pair.a.call("PATCH", `/v1/partners/${partnerOnA}`, { url: front.url });
		try {
			const id = await send();
			const delivered = await settled(pair.a, id);
			expect(delivered.status, `${delivered.errorCode} ${delivered.errorMessage}`).toBe("delivered");
			expect(delivered.attempts).toBe(4);
			expect(front.seen.map((s) => s.answered)).toEqual(["reset", "503", "500", "forwarded"]);
			expect(front.seen.map((s) => s.messageId)).toEqual(Array(4).fill(`<${delivered.messageId}>`));
			const stored = await pair.b.server.store.messages.list(
				pair.b.tenantId,
				{ search: delivered.messageId },
				{ page: 1, perPage: 10 },
			);
			expect(stored.total).toBe(1);
		} finally {
			await pair.a.call("PATCH", `/v1/partners/${partnerOnA}`, { url: `${pair.b.baseUrl}/as2/receive` });
		}
	});
});

describe("usage of received messages", () => {
	const usage = async (peer: Peer) => {
		const period = billingPeriod(new Date()).key;
		const get = (metric: string) => peer.server.store.usage.get({ accountId: peer.accountId, period, metric });
		return { messages: await get("live_messages"), bytes: await get("live_bytes") };
	};

	it("a received live message counts one message and its bytes for B's account; a duplicate or a refusal none", async () => {
		const before = await usage(pair.b);
		const payload = "x".repeat(3333);
		const delivered = await settled(pair.a, await send({ payload: { content: payload } }));
		expect(delivered.status).toBe("delivered");
		const inbound = await inboundOf(pair.b, delivered.messageId);
		expect(inbound?.bytes).toBe(3333);
		expect(await usage(pair.b)).toEqual({ messages: before.messages + 1, bytes: before.bytes + 3333 });

		// The same Message-ID again (the sender's retry): no second count.
		await pair.a.server.store.messages.update(delivered.id, { status: "queued" } as never);
		await pair.a.server.store.transaction((tx) =>
			tx.jobs.enqueue({ kind: "message.send", payload: { messageId: delivered.id }, runAt: new Date() }, new Date()),
		);
		pair.a.server.service.deps.wake();
		await eventually(async () => {
			const m = await pair.a.server.store.messages.get(pair.a.tenantId, delivered.id);
			return m && m.status === "delivered" && m.attempts === 2 ? m : null;
		}, "the resend to be answered");
		expect(await usage(pair.b)).toEqual({ messages: before.messages + 1, bytes: before.bytes + 3333 });

		// A message B refuses (required signature missing) is not counted either.
		await pair.b.call("PATCH", `/v1/partners/${partnerOnB}`, { inbound: { require_signed: true } });
		try {
			const refused = await settled(pair.a, await send({ sign: false, encrypt: false }));
			expect(refused.errorCode).toBe("INSUFFICIENT_MESSAGE_SECURITY");
		} finally {
			await pair.b.call("PATCH", `/v1/partners/${partnerOnB}`, { inbound: { require_signed: null } });
		}
		expect(await usage(pair.b)).toEqual({ messages: before.messages + 1, bytes: before.bytes + 3333 });
	});
});

describe("/as2/receive limits are per partner", () => {
	let pki: TestPki;
	let gamma: Peer;
	const partnerIds: Record<string, string> = {};

	beforeAll(async () => {
		pki = createTestPki();
		// A plan with an API budget (free: burst 20), and 3 inbound messages per partner.
		gamma = await startPeer("Gamma", pki, {
			AS2_DEFAULT_PLAN: "free",
			AS2_RECEIVE_BURST: "3",
			AS2_RECEIVE_PER_SECOND: "0.001",
		});
		for (const as2Id of ["PAPA", "QUEBEC"]) {
			const created = await gamma.call("POST", "/v1/partners", {
				name: as2Id,
				as2_id: as2Id,
				url: "https://partner.example/as2",
			});
			expect(created.status, created.text).toBe(201);
			partnerIds[as2Id] = created.json.data.id;
		}
	});
	afterAll(async () => {
		await gamma.server.close();
		rmSync(pki.dir, { recursive: true, force: true });
	});

	let n = 0;
	const post = (from: string) =>
		gamma.server.app.request("/as2/receive", {
			method: "POST",
			headers: {
				"as2-from": from,
				"as2-to": gamma.as2Id,
				"message-id": `<limit-${++n}@test>`,
				"content-type": "text/plain",
			},
			body: "hello",
		});
	const api = async () => {
		const response = await gamma.server.app.request("/v1/partners", {
			headers: { authorization: `Bearer ${gamma.key}` },
		});
		return { status: response.status, remaining: Number(response.headers.get("x-ratelimit-remaining")) };
	};

	it("P past its budget gets 429 while Q of the same tenant is accepted, and the API budget is untouched", async () => {
		const first = await api();
		expect(first.status).toBe(200);
		const papa: number[] = [];
		for (let i = 0; i < 5; i++) papa.push((await post("PAPA")).status);
		expect(papa).toEqual([200, 200, 200, 429, 429]);
		const limited = await post("PAPA");
		expect(limited.status).toBe(429);
		expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);

		expect((await post("QUEBEC")).status).toBe(200);
		expect((await post("QUEBEC")).status).toBe(200);

		// Eight AS2 requests took nothing from the account's API bucket (one GET did).
		const second = await api();
		expect(second.status).toBe(200);
		expect(second.remaining).toBeGreaterThanOrEqual(first.remaining - 1);
	});

	it("an account whose API budget is spent (429) still receives Q's messages", async () => {
		let status = 200;
		for (let i = 0; i < 60 && status !== 429; i++) status = (await api()).status;
		expect(status).toBe(429);
		expect((await post("QUEBEC")).status).toBe(200);
		// …and Q's budget is its own: its fourth message is the one refused, P is still refused.
		expect((await post("QUEBEC")).status).toBe(429);
		expect((await post("PAPA")).status).toBe(429);
	});
});
