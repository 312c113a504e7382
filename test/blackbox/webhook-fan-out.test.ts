/**
 * An event's webhook fan-out over real sockets (issue #20: the check for an active endpoint
 * now runs inside the event's insert; interface spec, Webhooks: an event goes to each endpoint
 * active when it is written). On the built server, with its worker: a message queued while
 * the account has no endpoint is never delivered, not even to an endpoint created later; the
 * very next message after an endpoint is created (with curl) is; none while the endpoint is
 * deactivated; a submission aborted mid-body (raw socket) writes no event at all. Every URL is
 * a loopback receiver of this file.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Receiver, startReceiver, waitFor } from "../../packages/server/test/helpers/webhook-receiver.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, curl, type Registered, rawRequest, register } from "./clients.ts";

let server: BuiltServer;
let receiver: Receiver;
let owner: Registered;
let partnerId: string;

beforeAll(async () => {
	[server, receiver] = await Promise.all([
		startBuiltServer({ env: { AS2_ALLOW_HTTP: "1", AS2_ALLOW_PRIVATE_TARGETS: "1", AS2_DEFAULT_PLAN: "enterprise" } }),
		startReceiver(),
	]);
	owner = await register(server.base);
	const partner = await call(server.base, "POST", "/v1/partners", {
		token: owner.token,
		body: { name: "Fan-out partner", as2_id: `FAN-OUT-${process.pid}`, url: `${receiver.url}/as2` },
	});
	expect(partner.status, partner.text).toBe(201);
	partnerId = partner.json.data.id;
}, 120_000);
afterAll(async () => {
	await receiver?.close();
	await server?.stop();
});

/** A message held for tomorrow: its only event is message.queued, and nothing is sent to the partner. */
async function queueMessage(): Promise<string> {
	const message = await call(server.base, "POST", "/v1/messages", {
		token: owner.token,
		body: {
			partner_id: partnerId,
			content_type: "text/plain",
			payload: { content: "fan-out" },
			scheduled_at: new Date(Date.now() + 86_400_000).toISOString(),
		},
	});
	expect(message.status, message.text).toBe(202);
	return message.json.data.id;
}

/** The messages whose message.queued reached the receiver. */
const queuedDelivered = () =>
	receiver.requests
		.filter((q) => q.path.endsWith("/hook") && q.json?.event === "message.queued")
		.map((q) => q.json.data.id as string);

/** The messages whose message.queued the endpoint's delivery log holds, once each has succeeded. */
async function loggedQueued(endpointId: string): Promise<{ ids: string[]; settled: boolean }> {
	const log = await call(server.base, "GET", `/v1/webhook-endpoints/${endpointId}/deliveries`, { token: owner.token });
	expect(log.status, log.text).toBe(200);
	const queued = log.json.data.filter((d: { event: string }) => d.event === "message.queued");
	return {
		ids: queued.map((d: { payload?: { data?: { id?: string } } }) => d.payload?.data?.id ?? "?"),
		settled: queued.every((d: { status: string }) => d.status === "succeeded"),
	};
}

describe("webhook fan-out over real sockets", () => {
	it("delivers the very next event after an endpoint is created, never one written before it or while it is inactive", async () => {
		const before = await queueMessage();

		// Created with curl, as an operator would.
		const { stdout } = await curl([
			"-X",
			"POST",
			`${server.base}/v1/webhook-endpoints`,
			"-H",
			`Authorization: Bearer ${owner.token}`,
			"-H",
			"Content-Type: application/json",
			"--data",
			JSON.stringify({ url: `${receiver.url}/hook`, events: ["message.queued"] }),
			"-w",
			"\n%{http_code}",
		]);
		const cut = stdout.lastIndexOf("\n");
		expect(stdout.slice(cut + 1), stdout).toBe("201");
		const endpointId = JSON.parse(stdout.slice(0, cut)).data.id as string;

		const next = await queueMessage();
		await waitFor(() => queuedDelivered().includes(next), "the next message's message.queued", 60_000);

		const paused = await call(server.base, "PATCH", `/v1/webhook-endpoints/${endpointId}`, {
			token: owner.token,
			body: { active: false },
		});
		expect(paused.status, paused.text).toBe(200);
		const whilePaused = await queueMessage();

		// Forged length, body cut short: the request never completes, so nothing is written.
		const aborted = await rawRequest(
			server.port,
			[
				"POST /v1/messages HTTP/1.1",
				"Host: 127.0.0.1",
				`Authorization: Bearer ${owner.token}`,
				"Content-Type: application/json",
				"Content-Length: 4096",
				"",
				"",
			].join("\r\n"),
			[`{"partner_id":"${partnerId}","content_type":"text/plain","payload":{"con`],
			{ resetAfterWrite: true },
		);
		expect(aborted.status).toBeNull();

		const resumed = await call(server.base, "PATCH", `/v1/webhook-endpoints/${endpointId}`, {
			token: owner.token,
			body: { active: true },
		});
		expect(resumed.status, resumed.text).toBe(200);
		const after = await queueMessage();
		await waitFor(() => queuedDelivered().includes(after), "message.queued after reactivation", 60_000);
		await waitFor(async () => (await loggedQueued(endpointId)).settled, "the endpoint's deliveries settled", 60_000);

		expect(queuedDelivered().sort()).toEqual([next, after].sort());
		expect((await loggedQueued(endpointId)).ids.sort()).toEqual([next, after].sort());
		expect([before, whilePaused]).not.toContain(next);
		server.assertAlive();
	}, 180_000);
});
