import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEND_JOB } from "../../src/service/messages/send-job-kind.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";
import { jobContext } from "../helpers/worker.ts";

/**
 * A send job and its lease: a worker whose event loop stalled past the lease may find that
 * another instance has claimed the job meanwhile. That instance sends the message (with the
 * same Message-ID); the stalled one must not POST it too, nor record an outcome for it.
 * (Seen in the several-instances suite under load: one message sent by two instances at once.)
 */
let partner: Server;
let port: number;
const sockets: Socket[] = [];
let connections = 0;
/** Answer 200 at once, or never answer: a POST stays in flight until the sender gives up. */
let answer = true;
beforeAll(async () => {
	partner = createServer((socket) => {
		connections++;
		sockets.push(socket);
		socket.on("error", () => {});
		if (answer) socket.end("HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
	});
	await new Promise<void>((resolve) => partner.listen(0, "127.0.0.1", resolve));
	port = (partner.address() as AddressInfo).port;
});
afterAll(async () => {
	for (const socket of sockets) socket.destroy();
	await new Promise<void>((resolve) => partner.close(() => resolve()));
});

describe("a send job whose lease another worker took", () => {
	let t: TestApp;
	let liveKey: string;
	let partnerId: string;
	beforeAll(async () => {
		t = createTestApp({ allowHttp: true, allowPrivateTargets: true, defaultPlan: "professional" });
		const owner = await register(t);
		liveKey = await createKey(t, owner.token, { scope: "account", environment: "live", permissions: ["*"] });
		const created = await t.call("POST", "/v1/partners", {
			token: liveKey,
			body: { name: "Silent", as2_id: "SILENT", url: `http://127.0.0.1:${port}/as2`, mdn_mode: "none" },
		});
		expect(created.status, created.text).toBe(201);
		partnerId = created.json.data.id;
	});
	afterAll(() => t.close());
	beforeEach(() => {
		connections = 0;
	});

	async function queued() {
		const submitted = await t.call("POST", "/v1/messages", {
			token: liveKey,
			body: { partner_id: partnerId, content_type: "application/edi-x12", payload: { content: "ISA*00*~" } },
		});
		expect(submitted.status, submitted.text).toBe(202);
		const job = (await t.store.jobs.list({ kind: SEND_JOB })).find(
			(j) => j.payload.messageId === submitted.json.data.id,
		);
		return { id: submitted.json.data.id as string, job: job! };
	}

	it("does not POST when the lease cannot be confirmed before sending", async () => {
		const { id, job } = await queued();
		await t.service.messages.handlers[SEND_JOB]!(job, jobContext({ leaseHeld: false }));
		expect(connections).toBe(0);
		const message = (await t.call("GET", `/v1/messages/${id}`, { token: liveKey })).json.data;
		expect(message.status).not.toBe("failed");
		expect(message.error_code ?? null).toBeNull();
	});

	it("stops a POST in flight when the lease is lost, and records no outcome", async () => {
		answer = false;
		const { id, job } = await queued();
		const lost = new AbortController();
		const sending = t.service.messages.handlers[SEND_JOB]!(job, {
			...jobContext(),
			leaseLost: lost.signal,
		});
		// The partner holds the connection open: the POST is in flight once it has connected.
		for (const deadline = Date.now() + 30_000; connections === 0; ) {
			if (Date.now() > deadline) throw new Error("the send did not connect within 30 s");
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
		lost.abort();
		await sending;
		const message = (await t.call("GET", `/v1/messages/${id}`, { token: liveKey })).json.data;
		expect(message.status).toBe("processing");
		expect(message.error_code ?? null).toBeNull();
	});
});
