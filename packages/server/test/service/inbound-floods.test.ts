import { afterEach, describe, expect, it } from "vitest";
import { billingPeriod } from "../../src/service/billing/usage.ts";
import type { ServiceConfig } from "../../src/service/config.ts";
import { createInboundConcurrency } from "../../src/service/messages/inbound-concurrency.ts";
import type { ReceiveResponse } from "../../src/service/messages/receive.ts";
import { RECEIVE_JOB } from "../../src/service/messages/send-job-kind.ts";
import { PLANS, receiveLimits } from "../../src/service/plans.ts";
import { createTestApp, register, type TestApp } from "../helpers/test-app.ts";
import { jobContext } from "../helpers/worker.ts";

/**
 * Inbound floods (issue #16, defects 10 and 11): the per-partner receive limit follows the
 * tenant's plan (the environment caps it), unsigned messages do not use up the allowance, and
 * inbound work is bounded per tenant and per instance, answered 503 with Retry-After over it.
 */
let t: TestApp;
afterEach(() => t?.close());

async function tenantWithPartners(app: TestApp, plan: string, partners: string[]) {
	const owner = await register(app);
	await app.store.accounts.update(owner.accountId, { plan } as never);
	const as2Id = (await app.call("GET", `/v1/tenants/${owner.tenantId}`, { token: owner.token })).json.data.as2_id;
	for (const partner of partners) {
		const created = await app.call("POST", "/v1/partners", {
			token: owner.token,
			body: { name: partner, as2_id: partner, url: `https://${partner.toLowerCase()}.example/as2` },
		});
		expect(created.status, created.text).toBe(201);
	}
	return { ...owner, as2Id };
}

let n = 0;
/** A plain (unsigned, unencrypted) AS2 message that waits for no MDN; its body may be held open. */
function receive(app: TestApp, to: string, from: string, body: ReadableStream<Uint8Array> | string = "UNB+UNOA:2'") {
	return app.service.messages.receive({
		headers: [
			["as2-from", from],
			["as2-to", to],
			["message-id", `<flood-${++n}@spoofer.example>`],
			["content-type", "application/edifact"],
		],
		body: typeof body === "string" ? new Blob([body]).stream() : body,
		contentLength: null,
		clientIp: "192.0.2.66",
	});
}

/** A body that sends one byte, then waits for `release()`: the request holds its slot meanwhile. */
function heldBody() {
	let release: () => void = () => {};
	const released = new Promise<void>((resolve) => {
		release = resolve;
	});
	const stream = new ReadableStream<Uint8Array>({
		async start(controller) {
			controller.enqueue(new Uint8Array([0x55]));
			await released;
			controller.close();
		},
	});
	return { stream, release };
}

const receiveHandler = (app: TestApp) => app.service.messages.handlers[RECEIVE_JOB]!;

/** Runs the stored messages' receive jobs, as the worker would. */
async function runReceiveJobs(app: TestApp): Promise<void> {
	for (const job of await app.store.jobs.list({ kind: RECEIVE_JOB })) await receiveHandler(app)(job, jobContext());
}

const usage = (app: TestApp, accountId: string, metric: string) =>
	app.store.usage.get({ accountId, period: billingPeriod(app.clock.now()).key, metric });

describe("per-plan receive limits", () => {
	it("derives each plan's burst and rate, capped by AS2_RECEIVE_BURST and AS2_RECEIVE_PER_SECOND", () => {
		const cap = { receiveBurst: 2000, receivePerSecond: 500 };
		expect(receiveLimits(PLANS.free, cap)).toEqual({ capacity: 50, refillPerSecond: 1 });
		expect(receiveLimits(PLANS.professional, cap)).toEqual({ capacity: 1000, refillPerSecond: 25 });
		expect(receiveLimits(PLANS.enterprise, cap)).toEqual({ capacity: 2000, refillPerSecond: 500 });
		expect(receiveLimits(PLANS.starter, { receiveBurst: 10, receivePerSecond: 0.5 })).toEqual({
			capacity: 10,
			refillPerSecond: 0.5,
		});
	});

	it("bounds a spoofed flood at a Free tenant by the plan, and unsigned messages leave the allowance alone", async () => {
		t = createTestApp();
		const owner = await tenantWithPartners(t, "free", ["SPOOFED"]);
		const statuses: number[] = [];
		let last: ReceiveResponse | null = null;
		for (let i = 0; i < 120; i++) {
			last = await receive(t, owner.as2Id, "SPOOFED");
			statuses.push(last.status);
		}
		// The clock stands still: exactly the Free burst is admitted, the rest is told to wait.
		expect(statuses.filter((s) => s === 200)).toHaveLength(PLANS.free.receiveBurst!);
		expect(statuses.slice(PLANS.free.receiveBurst!).every((s) => s === 429)).toBe(true);
		expect(new Map(last!.headers).get("Retry-After")).toBe("1");
		// Processed, the admitted ones count apart from the allowance: the account can still send.
		await runReceiveJobs(t);
		expect(await usage(t, owner.accountId, "unsigned_received_messages")).toBe(PLANS.free.receiveBurst);
		expect(await usage(t, owner.accountId, "live_messages")).toBe(0);
	});
});

describe("bounded inbound work", () => {
	it("holds at most the plan's concurrent messages per tenant; the next gets 503 with Retry-After; others go on", async () => {
		t = createTestApp();
		const free = await tenantWithPartners(t, "free", ["HOLDER"]);
		const other = await tenantWithPartners(t, "free", ["OTHER"]);
		const held = Array.from({ length: PLANS.free.concurrent! }, () => heldBody());
		const pending = held.map((h) => receive(t, free.as2Id, "HOLDER", h.stream));
		await expect.poll(() => t.service.messages.inbound.running).toBe(PLANS.free.concurrent);

		const refused = await receive(t, free.as2Id, "HOLDER");
		expect(refused.status).toBe(503);
		expect(new Map(refused.headers).get("Retry-After")).toBe("5");
		expect((await receive(t, other.as2Id, "OTHER")).status).toBe(200);

		for (const h of held) h.release();
		expect((await Promise.all(pending)).map((r) => r.status)).toEqual(Array(held.length).fill(200));
		expect(t.service.messages.inbound.running).toBe(0);
		expect((await receive(t, free.as2Id, "HOLDER")).status).toBe(200);
	});

	it("holds at most AS2_RECEIVE_CONCURRENCY messages on the instance, whatever the tenant; a receive job waits too", async () => {
		t = createTestApp({ receiveConcurrency: 2 } satisfies Partial<ServiceConfig>);
		const a = await tenantWithPartners(t, "enterprise", ["ALPHA"]);
		const b = await tenantWithPartners(t, "enterprise", ["BRAVO"]);
		expect((await receive(t, b.as2Id, "BRAVO")).status).toBe(200);
		const [stored] = await t.store.jobs.list({ kind: RECEIVE_JOB });
		const held = [heldBody(), heldBody()];
		const pending = held.map((h) => receive(t, a.as2Id, "ALPHA", h.stream));
		await expect.poll(() => t.service.messages.inbound.running).toBe(2);

		expect((await receive(t, b.as2Id, "BRAVO")).status).toBe(503);
		// The stored message is not processed over the bound either: its job runs again later.
		await expect(receiveHandler(t)(stored!, jobContext())).rejects.toThrow(/inbound processing is at its bound/);

		for (const h of held) h.release();
		expect((await Promise.all(pending)).map((r) => r.status)).toEqual([200, 200]);
		await receiveHandler(t)(stored!, jobContext());
		const inbound = await t.store.messages.list(b.tenantId, { direction: "inbound" }, { page: 1, perPage: 10 });
		expect(inbound.total).toBe(1);
	});

	it("counts and frees slots per tenant (the limiter alone)", () => {
		const slots = createInboundConcurrency(3);
		const a1 = slots.tryEnter("a", 2);
		const a2 = slots.tryEnter("a", 2);
		expect(slots.tryEnter("a", 2)).toBeNull();
		const b1 = slots.tryEnter("b", null);
		expect(slots.tryEnter("c", null)).toBeNull();
		a1!();
		a1!();
		expect(slots.running).toBe(2);
		expect(slots.tryEnter("a", 2)).not.toBeNull();
		a2!();
		b1!();
	});
});
