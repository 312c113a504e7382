import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Background } from "../../src/service/jobs/background.ts";
import { makeCertificates } from "../helpers/certs.ts";
import {
	createPartnerWithCertificate,
	type PartnerAnswer,
	type PartnerRequest,
	processedAnswer,
	type QuirkyPartners,
	startQuirkyPartners,
} from "../helpers/quirky-partner.ts";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";
import { eventually, startWorker } from "../helpers/worker.ts";

/**
 * Retry, cancel and resend (issue #18, Act on a message) through the real send job, against a
 * partner endpoint on 127.0.0.1 whose answer each test sets: a refusal, a 503 (the send job
 * schedules its next attempt an hour later), a request held until the test lets it go, or a
 * signed MDN with the right MIC.
 */
const certs = makeCertificates();
const partnerKey = certs.selfSigned("actions-partner");
const X12 = "ISA*00*          *00*          *ZZ*OURS*ZZ*ACTIONS~\r\nST*850*0001~\r\n";

let partners: QuirkyPartners;
let t: TestApp;
let worker: Background;
let key: string;
let readOnlyKey: string;
let tenantAs2Id: string;

beforeAll(async () => {
	partners = await startQuirkyPartners();
	// A transient failure waits an hour for its next attempt: long enough to act on it.
	t = createTestApp({
		defaultPlan: "professional",
		allowPrivateTargets: true,
		allowHttp: true,
		sendRetryDelays: [3600, 3600, 3600],
	});
	worker = startWorker(t);
	const owner = await register(t, "Actions Co");
	key = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "live",
		permissions: ["*"],
	});
	readOnlyKey = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "live",
		permissions: ["messages:read"],
	});
	tenantAs2Id = (await t.call("GET", `/v1/tenants/${owner.tenantId}`, { token: owner.token })).json.data.as2_id;
});
afterAll(async () => {
	await worker?.stop();
	await t?.close();
	await partners?.close();
	rmSync(certs.dir, { recursive: true, force: true });
});

/** A partner that signs and answers sync MDNs the way `answer` says. */
async function partner(as2Id: string, answer: (r: PartnerRequest) => PartnerAnswer | Promise<PartnerAnswer>) {
	partners.answer(as2Id, answer);
	return createPartnerWithCertificate(
		(path, body) => t.call("POST", path, { token: key, body }),
		{ name: as2Id, as2_id: as2Id, url: partners.url, sign: true, mdn_mode: "sync", mdn: { signed: true } },
		partnerKey.certPem,
	);
}

const processed = (request: PartnerRequest) => processedAnswer(certs.dir, request, partnerKey, tenantAs2Id);

async function submit(partnerId: string, extra: Record<string, unknown> = {}): Promise<string> {
	const sent = await t.call("POST", "/v1/messages", {
		token: key,
		body: { partner_id: partnerId, content_type: "application/edi-x12", payload: { content: X12 }, ...extra },
	});
	expect(sent.status, sent.text).toBe(202);
	return sent.json.data.id;
}

// biome-ignore lint/suspicious/noExplicitAny: the message detail as JSON
async function detail(id: string): Promise<any> {
	return (await t.call("GET", `/v1/messages/${id}`, { token: key })).json.data;
}

// biome-ignore lint/suspicious/noExplicitAny: the message detail as JSON
async function until(id: string, check: (m: any) => boolean, what: string): Promise<any> {
	return eventually(async () => {
		const message = await detail(id);
		return check(message) ? message : null;
	}, `${id} ${what}`);
}

const act = (id: string, action: "retry" | "cancel" | "resend", token = key, headers?: Record<string, string>) =>
	t.call("POST", `/v1/messages/${id}/${action}`, { token, ...(headers ? { headers } : {}) });

const kindsOf = async (id: string) => {
	const accountId = (await t.store.messages.getById(id))!.accountId;
	return (await t.store.events.list({ accountId })).filter((e) => e.data.id === id).map((e) => e.kind);
};

describe("POST /v1/messages/{id}/retry", () => {
	it("queues a failed message again with the same Message-ID; it is delivered, its old error gone", async () => {
		let refuse = true;
		const id = await partner("RETRY-FAILED", (request) =>
			refuse ? { status: 400, body: "not today" } : processed(request),
		);
		const message = await submit(id);
		const failed = await until(message, (m) => m.status === "failed", "failed");
		expect(failed).toMatchObject({ error_code: "PARTNER_REJECTED", attempts: 1, next_attempt_at: null });
		refuse = false;
		const retried = await act(message, "retry");
		expect(retried.status, retried.text).toBe(200);
		expect(retried.json.data).toMatchObject({ status: "queued", error_code: null, error_message: null });
		const delivered = await until(message, (m) => m.status === "delivered", "delivered");
		expect(delivered).toMatchObject({ attempts: 2, error_code: null, error_hint: null, mdn_status: "received" });
		const requests = partners.requests("RETRY-FAILED");
		expect(requests).toHaveLength(2);
		expect(requests[1]!.headers["message-id"]).toBe(requests[0]!.headers["message-id"]);
		expect(requests[1]!.headers["message-id"]).toBe(`<${delivered.message_id}>`);
		expect(await kindsOf(message)).toEqual([
			"message.queued",
			"message.failed",
			"message.queued",
			"message.sent",
			"message.delivered",
		]);
		// GET …/timeline: the same, each with the attempt it belongs to.
		const timeline = await t.call("GET", `/v1/messages/${message}/timeline`, { token: readOnlyKey });
		expect(timeline.status, timeline.text).toBe(200);
		expect(
			timeline.json.data.map((e: { event: string; status: string; attempt: number | null }) => [
				e.event,
				e.status,
				e.attempt,
			]),
		).toEqual([
			["message.queued", "queued", null],
			["message.failed", "failed", 1],
			["message.queued", "queued", null],
			["message.sent", "sent", 2],
			["message.delivered", "delivered", 2],
		]);
		expect(timeline.json.data[1].data).toMatchObject({ error_code: "PARTNER_REJECTED" });
		const stranger = await register(t, "Nosy Co");
		expect((await t.call("GET", `/v1/messages/${message}/timeline`, { token: stranger.token })).status).toBe(404);
	});

	it("a message waiting for its next attempt shows next_attempt_at, and retry attempts it now", async () => {
		let busy = true;
		const id = await partner("RETRY-WAITING", (request) => (busy ? { status: 503, body: "busy" } : processed(request)));
		const message = await submit(id);
		const waiting = await until(message, (m) => m.next_attempt_at !== null, "waiting for its next attempt");
		expect(waiting).toMatchObject({ status: "processing", error_code: "PARTNER_UNREACHABLE", attempts: 1 });
		const next = new Date(waiting.next_attempt_at).getTime();
		expect(next - t.clock.now().getTime()).toBeGreaterThan(3000 * 1000);
		busy = false;
		const retried = await act(message, "retry");
		expect(retried.status, retried.text).toBe(200);
		const delivered = await until(message, (m) => m.status === "delivered", "delivered");
		expect(delivered).toMatchObject({ attempts: 2, next_attempt_at: null });
		expect(partners.requests("RETRY-WAITING")).toHaveLength(2);
	});

	it("twice at once: it is queued once, and the partner gets one more request", async () => {
		let refuse = true;
		const id = await partner("RETRY-TWICE", (request) =>
			refuse ? { status: 400, body: "not today" } : processed(request),
		);
		const message = await submit(id);
		await until(message, (m) => m.status === "failed", "failed");
		refuse = false;
		const answers = await Promise.all([act(message, "retry"), act(message, "retry")]);
		// One queues it again; the other finds it failed still (409), or queued and due (200).
		expect(answers.map((a) => a.status)).toContain(200);
		for (const answer of answers) {
			if (answer.status !== 200) expect(answer.json.error.code).toBe("INVALID_MESSAGE_STATE");
		}
		await until(message, (m) => m.status === "delivered", "delivered");
		expect(partners.requests("RETRY-TWICE")).toHaveLength(2);
		expect((await kindsOf(message)).filter((kind) => kind === "message.queued")).toHaveLength(2);
		expect(
			await t.store.jobs
				.list({ kind: "message.send" })
				.then((jobs) => jobs.filter((j) => j.payload.messageId === message)),
		).toEqual([]);
	});

	it("refuses a delivered message (409), an unknown one (404), a key without messages:write (403)", async () => {
		const id = await partner("RETRY-DELIVERED", processed);
		const message = await submit(id);
		await until(message, (m) => m.status === "delivered", "delivered");
		const again = await act(message, "retry");
		expect(again.status).toBe(409);
		expect(again.json.error).toMatchObject({ code: "INVALID_MESSAGE_STATE" });
		expect(again.json.error.message).toContain("delivered");
		expect((await act("msg_999999", "retry")).status).toBe(404);
		expect((await act(message, "retry", readOnlyKey)).status).toBe(403);
	});
});

describe("POST /v1/messages/{id}/cancel", () => {
	it("a scheduled message ends failed CANCELLED and is never sent", async () => {
		const id = await partner("CANCEL-SCHEDULED", processed);
		const at = new Date(t.clock.now().getTime() + 86_400_000).toISOString();
		const message = await submit(id, { scheduled_at: at });
		const cancelled = await act(message, "cancel");
		expect(cancelled.status, cancelled.text).toBe(200);
		expect(cancelled.json.data).toMatchObject({ status: "failed", error_code: "CANCELLED" });
		expect((await t.store.jobs.list({ kind: "message.send" })).filter((j) => j.payload.messageId === message)).toEqual(
			[],
		);
		expect(await kindsOf(message)).toEqual(["message.queued", "message.failed"]);
		expect((await act(message, "cancel")).status).toBe(409);
		expect(partners.requests("CANCEL-SCHEDULED")).toHaveLength(0);
	});

	it("a message waiting for its next attempt is cancelled; its next attempt never comes", async () => {
		const id = await partner("CANCEL-WAITING", () => ({ status: 503, body: "busy" }));
		const message = await submit(id);
		await until(message, (m) => m.next_attempt_at !== null, "waiting for its next attempt");
		const cancelled = await act(message, "cancel");
		expect(cancelled.status, cancelled.text).toBe(200);
		expect(cancelled.json.data).toMatchObject({ status: "failed", error_code: "CANCELLED", next_attempt_at: null });
		// Its next attempt, even if due now, finds nothing to send.
		expect((await t.store.jobs.list({ kind: "message.send" })).filter((j) => j.payload.messageId === message)).toEqual(
			[],
		);
		expect(partners.requests("CANCEL-WAITING")).toHaveLength(1);
	});

	it("cancelled as soon as it shows next_attempt_at, even before the worker has put the job down", async () => {
		// The worker's own bookkeeping after the attempt is held: a cancel in that moment must
		// find the message waiting (interface spec: queued or waiting for its next attempt).
		const jobs = t.service.deps.store.jobs;
		const retry = jobs.retry;
		let release!: () => void;
		const held = new Promise<void>((resolve) => {
			release = resolve;
		});
		jobs.retry = async (...args) => {
			await held;
			return retry.apply(jobs, args);
		};
		try {
			const id = await partner("CANCEL-AT-ONCE", () => ({ status: 503, body: "busy" }));
			const message = await submit(id);
			await until(message, (m) => m.next_attempt_at !== null, "waiting for its next attempt");
			const cancelled = await act(message, "cancel");
			expect(cancelled.status, cancelled.text).toBe(200);
			expect(cancelled.json.data).toMatchObject({ status: "failed", error_code: "CANCELLED" });
		} finally {
			jobs.retry = retry;
			release();
		}
	});

	it("while a worker sends it: 409, the attempt is listed in progress, and the transmission goes on to delivered", async () => {
		let release!: () => void;
		const held = new Promise<void>((resolve) => {
			release = resolve;
		});
		let arrived!: () => void;
		const inFlight = new Promise<void>((resolve) => {
			arrived = resolve;
		});
		const id = await partner("CANCEL-SENDING", async (request) => {
			arrived();
			await held;
			return processed(request);
		});
		const message = await submit(id);
		await inFlight;
		const refused = await act(message, "cancel");
		const during = (await t.call("GET", `/v1/messages/${message}/attempts`, { token: key })).json.data;
		release();
		expect(refused.status, refused.text).toBe(409);
		expect(refused.json.error.message).toMatch(/being sent now/);
		// The attempt under way is listed before its row exists, then recorded with its outcome.
		expect(during).toEqual([
			expect.objectContaining({ number: 1, outcome: "in_progress", finished_at: null, url: partners.url }),
		]);
		await until(message, (m) => m.status === "delivered", "delivered");
		const after = (await t.call("GET", `/v1/messages/${message}/attempts`, { token: key })).json.data;
		expect(after).toEqual([expect.objectContaining({ number: 1, outcome: "succeeded", http_status: 200 })]);
		expect(after[0].finished_at).not.toBeNull();
	});

	it("a delivered message cannot be cancelled", async () => {
		const id = await partner("CANCEL-DELIVERED", processed);
		const message = await submit(id);
		await until(message, (m) => m.status === "delivered", "delivered");
		expect((await act(message, "cancel")).status).toBe(409);
		expect((await act(message, "cancel", readOnlyKey)).status).toBe(403);
	});
});

describe("POST /v1/messages/{id}/resend", () => {
	it("a new message with a new Message-ID and the same payload, linked both ways", async () => {
		const id = await partner("RESEND", processed);
		const original = await submit(id, { subject: "PO 4711" });
		const first = await until(original, (m) => m.status === "delivered", "delivered");
		const resent = await act(original, "resend");
		expect(resent.status, resent.text).toBe(202);
		const copy = resent.json.data;
		expect(copy).toMatchObject({ status: "queued", subject: "PO 4711", resent_from: original, bytes: first.bytes });
		expect(copy.id).not.toBe(original);
		expect(copy.message_id).not.toBe(first.message_id);
		expect((await detail(original)).resent_as).toEqual([copy.id]);
		const delivered = await until(copy.id, (m) => m.status === "delivered", "delivered");
		expect(delivered.details.payload_sha256).toBe(first.details.payload_sha256);
		const requests = partners.requests("RESEND");
		expect(requests.map((r) => r.headers["message-id"])).toEqual([`<${first.message_id}>`, `<${copy.message_id}>`]);
		const payload = await t.app.request(`/v1/messages/${copy.id}/payload`, {
			headers: { authorization: `Bearer ${key}` },
		});
		expect(await payload.text()).toBe(X12);
	});

	it("with one Idempotency-Key, twice: one new message", async () => {
		const id = await partner("RESEND-IDEMPOTENT", processed);
		const original = await submit(id);
		await until(original, (m) => m.status === "delivered", "delivered");
		const headers = { "Idempotency-Key": randomUUID() };
		const [a, b] = [await act(original, "resend", key, headers), await act(original, "resend", key, headers)];
		expect(a.status, a.text).toBe(202);
		expect(b.json.data.id).toBe(a.json.data.id);
		expect((await detail(original)).resent_as).toEqual([a.json.data.id]);
	});

	it("refuses a message still queued, and a key of another account sees no message", async () => {
		const id = await partner("RESEND-QUEUED", processed);
		const at = new Date(t.clock.now().getTime() + 86_400_000).toISOString();
		const message = await submit(id, { scheduled_at: at });
		expect((await act(message, "resend")).status).toBe(409);
		const stranger = await register(t, "Other Co");
		expect((await act(message, "resend", stranger.token)).status).toBe(404);
	});
});
