/**
 * Issue #18 §1, "Consistency", against the built server: one timestamp format everywhere, the
 * `message.sent` event says `sent`, a failed message's MDN is not left `pending`, a delivered
 * message keeps no error of an earlier attempt, and the simulated partner's MDN returns the
 * real MIC of the payload. Webhooks go to a loopback receiver; the live partner is a loopback
 * endpoint of this file (the on-premise opt-in AS2_ALLOW_PRIVATE_TARGETS=1).
 */
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { buildMdn } from "@as2kit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Receiver, startReceiver, waitFor } from "../../packages/server/test/helpers/webhook-receiver.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, createKey, type Registered, register } from "./clients.ts";

const MICROSECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
/** Anything that starts like an ISO 8601 date-time. */
const LOOKS_LIKE_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

let server: BuiltServer;
let receiver: Receiver;
let partnerEndpoint: Server;
let partnerRequests = 0;
let owner: Registered;
let liveKey: string;

beforeAll(async () => {
	// The live partner: its first delivery fails with 503 (a transient failure, retried), then it takes them.
	partnerEndpoint = createServer((req, res) => {
		req.resume();
		req.on("end", () => res.writeHead(++partnerRequests === 1 ? 503 : 200, { "content-type": "text/plain" }).end());
	});
	await new Promise<void>((resolve) => partnerEndpoint.listen(0, "127.0.0.1", resolve));
	[server, receiver] = await Promise.all([
		startBuiltServer({
			env: {
				AS2_ALLOW_HTTP: "1",
				AS2_ALLOW_PRIVATE_TARGETS: "1",
				AS2_DEFAULT_PLAN: "professional",
				AS2_SEND_RETRY_DELAYS: "0,1",
			},
		}),
		startReceiver(),
	]);
	owner = await register(server.base);
	liveKey = await createKey(server.base, owner.token, { scope: "account", environment: "live", permissions: ["*"] });
	const endpoint = await call(server.base, "POST", "/v1/webhook-endpoints", {
		token: owner.token,
		body: { url: receiver.url, events: ["*"] },
	});
	expect(endpoint.status, endpoint.text).toBe(201);
}, 120_000);
afterAll(async () => {
	await receiver?.close();
	await server?.stop();
	await new Promise<void>((resolve) => partnerEndpoint.close(() => resolve()));
});

/** Every string field that looks like a timestamp, with its path. */
function timestamps(value: unknown, path = ""): [string, string][] {
	if (typeof value === "string") return LOOKS_LIKE_TIMESTAMP.test(value) ? [[path, value]] : [];
	if (typeof value !== "object" || value === null) return [];
	return Object.entries(value).flatMap(([key, item]) => timestamps(item, `${path}.${key}`));
}

async function createPartner(token: string, body: Record<string, unknown>): Promise<string> {
	const created = await call(server.base, "POST", "/v1/partners", {
		token,
		body: { sign: false, encrypt: false, ...body },
	});
	expect(created.status, created.text).toBe(201);
	return created.json.data.id;
}

async function submit(token: string, partnerId: string, payload: string): Promise<string> {
	const form = new FormData();
	form.set("partner_id", partnerId);
	form.set("content_type", "application/edi-x12");
	form.set("file", new Blob([payload]), "order.edi");
	const sent = await call(server.base, "POST", "/v1/messages", { token, body: form });
	expect(sent.status, sent.text).toBe(202);
	return sent.json.data.id;
}

// biome-ignore lint/suspicious/noExplicitAny: the message detail as JSON
async function settled(token: string, id: string, statuses: string[]): Promise<any> {
	// biome-ignore lint/suspicious/noExplicitAny: the message detail as JSON
	let message: any;
	await waitFor(
		async () => {
			message = (await call(server.base, "GET", `/v1/messages/${id}`, { token })).json.data;
			return statuses.includes(message.status);
		},
		`message ${id} ${statuses.join(" or ")}`,
	);
	return message;
}

const eventsOf = (id: string) => receiver.requests.filter((request) => request.json?.data?.id === id);

describe("the simulated partner (test environment)", () => {
	const payload = "ISA*00*          *00*          *ZZ*ACME~IEA*1*000000001~\n";
	// biome-ignore lint/suspicious/noExplicitAny: the message detail and events as JSON
	let delivered: { message: any; events: any[] };
	beforeAll(async () => {
		const partnerId = await createPartner(owner.token, {
			name: "Simulated",
			as2_id: "SIMULATED",
			url: "https://as2.acme.example/receive",
			mdn_mode: "sync",
		});
		const id = await submit(owner.token, partnerId, payload);
		const message = await settled(owner.token, id, ["delivered", "failed"]);
		expect(message.status).toBe("delivered");
		await waitFor(() => eventsOf(id).length >= 3, "queued, sent and delivered events");
		delivered = { message, events: eventsOf(id).map((request) => request.json) };
	});

	it("returns the real Received-Content-MIC of the payload", () => {
		const mic = `${createHash("sha256").update(payload).digest("base64")}, sha-256`;
		expect(delivered.message.mdn_data).toMatchObject({ received_content_mic: mic, mic_matches: true });
		expect(delivered.message.mic).toBe(mic);
	});

	it("says status sent in message.sent, though a sync MDN delivered the message in the same step", () => {
		const kinds = Object.fromEntries(delivered.events.map((event) => [event.event, event.data.status]));
		expect(kinds).toEqual({ "message.queued": "queued", "message.sent": "sent", "message.delivered": "delivered" });
	});

	it("writes every timestamp of the message and its events with microseconds, mdn_data.received_at too", () => {
		const seen = timestamps(delivered);
		expect(seen.map(([path]) => path)).toContain(".message.mdn_data.received_at");
		for (const [path, value] of seen) expect(value, path).toMatch(MICROSECONDS);
	});

	it("leaves no MDN pending on a failed message", async () => {
		const partnerId = await createPartner(owner.token, {
			name: "Unreachable",
			as2_id: "FAILING",
			url: "https://as2.acme.example/receive",
			mdn_mode: "async",
		});
		const message = await settled(owner.token, await submit(owner.token, partnerId, "x"), ["failed", "delivered"]);
		expect(message).toMatchObject({ status: "failed", error_code: "PARTNER_UNREACHABLE", mdn_status: "failed" });
	});
});

describe("a live message whose first attempt failed", () => {
	it("keeps no error_code once it is sent and then delivered", async () => {
		const partnerId = await createPartner(liveKey, {
			name: "Flaky",
			as2_id: "FLAKY",
			url: `http://127.0.0.1:${(partnerEndpoint.address() as AddressInfo).port}/as2`,
			mdn_mode: "async",
			mdn: { signed: false, url: `${server.base}/as2/receive` },
		});
		const id = await submit(liveKey, partnerId, "ISA*00*~IEA*1~");
		const sent = await settled(liveKey, id, ["sent", "failed", "delivered"]);
		expect(sent).toMatchObject({ status: "sent", attempts: 2, mdn_status: "pending", error_code: null });
		expect(sent.error_message).toBeNull();
		// The send's outcome is one store step (MessageSteps.settle), its event made from the message
		// as the job held it with the patch: what it says is what the message says.
		await waitFor(() => eventsOf(id).some((request) => request.json.event === "message.sent"), "message.sent");
		const sentEvent = eventsOf(id).find((request) => request.json.event === "message.sent")!.json.data;
		expect(sentEvent).toMatchObject({
			id,
			message_id: sent.message_id,
			status: "sent",
			attempts: 2,
			sent_at: sent.sent_at,
			transmission_time_ms: sent.transmission_time_ms,
		});

		const tenantAs2Id = (await call(server.base, "GET", `/v1/tenants/${owner.tenantId}`, { token: liveKey })).json.data
			.as2_id;
		const mdn = buildMdn({
			original: {
				messageId: sent.message_id,
				from: tenantAs2Id,
				to: "FLAKY",
				mdnRequest: {
					mode: "async",
					url: `${server.base}/as2/receive`,
					notificationTo: "as2@as2kit.local",
					signed: false,
					micAlgorithms: ["sha256"],
				},
			},
			disposition: { type: "processed" },
		});
		const answer = await fetch(`${server.base}/as2/receive`, {
			method: "POST",
			headers: Object.fromEntries(mdn.headers),
			body: Buffer.from(mdn.body),
			signal: AbortSignal.timeout(30_000),
		});
		expect(answer.status, await answer.text()).toBe(200);
		const delivered = await settled(liveKey, id, ["delivered", "failed"]);
		expect(delivered).toMatchObject({ status: "delivered", error_code: null, error_message: null });
	});
});
