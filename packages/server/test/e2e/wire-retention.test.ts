import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { measureStorageHandler } from "../../src/service/billing/storage-usage.ts";
import { PURGE_WIRE, purgeWireHandler, WIRE_RETENTION_DAYS } from "../../src/service/messages/attempts-retention.ts";
import { addPartner, sendMessage, settled, startPair } from "../helpers/peers.ts";

/**
 * Issue #18: every attempt between two servers over HTTPS carries the TLS session's facts,
 * and its wire captures are removed by the periodic cleanup once past the plan's retention
 * (Free 3 days, Professional 30), the attempt itself kept.
 */
let pair: Awaited<ReturnType<typeof startPair>>;
let partnerOnA: string;

beforeAll(async () => {
	pair = await startPair();
	partnerOnA = await addPartner(pair.a, pair.b, pair.pki, { mdn_mode: "sync" });
	await addPartner(pair.b, pair.a, pair.pki);
});
afterAll(async () => {
	await pair?.close();
});

const DAY = 86_400_000;

/** A's storage as `GET /v1/account/usage` shows it, measured now (the task runs every 15 minutes). */
async function storageOfA() {
	await measureStorageHandler(pair.a.server.service.deps)({} as never, {} as never);
	const usage = await pair.a.call("GET", "/v1/account/usage");
	expect(usage.status, usage.text).toBe(200);
	return usage.json.data.storage;
}

/** What the attempts of `messageId` on A keep on the wire, in bytes. */
async function wireBytesOf(messageId: string) {
	const attempts = await pair.a.server.store.messageAttempts.list(pair.a.tenantId, messageId);
	return attempts.reduce((sum, a) => sum + (a.request?.bytes ?? 0) + (a.response?.bytes ?? 0) + (a.mdn?.bytes ?? 0), 0);
}

/** Runs A's wire cleanup as if it were `at`. */
async function purgeAt(at: Date) {
	// The scheduled task is this handler; made over a moved clock, it runs as it will then.
	expect(pair.a.server.service.messages.tasks).toContain(PURGE_WIRE);
	await purgeWireHandler({ ...pair.a.server.service.deps, now: () => at })({} as never, {} as never);
}

it("records TLS version and the partner's certificate fingerprint, and keeps captures for the plan's days", async () => {
	const { a, b, pki } = pair;
	await a.server.store.accounts.update(a.accountId, { plan: "free", updatedAt: new Date() });
	const free = await sendMessage(a, partnerOnA);
	expect((await settled(a, free)).status).toBe("delivered");
	await a.server.store.accounts.update(a.accountId, { plan: "professional", updatedAt: new Date() });
	const professional = await sendMessage(a, partnerOnA);
	expect((await settled(a, professional)).status).toBe("delivered");

	const [attempt] = (await a.call("GET", `/v1/messages/${free}/attempts`)).json.data;
	expect(attempt.tls_version).toMatch(/^TLSv1\.[23]$/);
	const leaf = new X509Certificate(readFileSync(pki.certPath));
	expect(attempt.peer_certificate_sha256).toBe(leaf.fingerprint256.replaceAll(":", "").toLowerCase());
	expect(attempt.wire.request).not.toBeNull();
	const bPlan = (await b.server.store.accounts.get(b.accountId))!.plan;
	const inbound = (await b.call("GET", "/v1/messages?direction=inbound")).json.data;
	expect(inbound.length).toBeGreaterThan(0);
	for (const message of inbound) {
		const [receipt] = (await b.call("GET", `/v1/messages/${message.id}/attempts`)).json.data;
		expect(receipt).toMatchObject({ number: 1, direction: "inbound", outcome: "succeeded" });
		expect(receipt.wire.request).toBe(`/v1/messages/${message.id}/attempts/1/request`);
		// The sync MDN B answered with, as B built it.
		expect(receipt.wire.response).toBe(`/v1/messages/${message.id}/attempts/1/response`);
		const sent = await b.call("GET", `/v1/messages/${message.id}/attempts/1/response?part=headers`);
		expect(sent.text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*content-type: multipart\/signed/i);
		// Kept for the days of B's plan, read once as B received the message.
		const kept = await b.server.store.messageAttempts.get(b.tenantId, message.id, 1);
		expect(kept!.wireExpiresAt!.getTime() - kept!.startedAt.getTime()).toBe(WIRE_RETENTION_DAYS[bPlan] * DAY);
	}

	const captured = await a.server.store.messageAttempts.get(a.tenantId, free, 1);
	const blobs = a.server.service.deps.blobs;
	expect(await blobs.stat(captured!.request!.blobKey)).not.toBeNull();
	const start = captured!.startedAt.getTime();

	// The captures count toward the account's storage until the cleanup removes them.
	const freeWire = await wireBytesOf(free);
	const professionalWire = await wireBytesOf(professional);
	expect(freeWire).toBeGreaterThan(0);
	const payloads = (await a.call("GET", "/v1/messages?direction=outbound")).json.data.reduce(
		(sum: number, m: { bytes: number }) => sum + m.bytes,
		0,
	);
	expect(await storageOfA()).toEqual({
		payload_bytes: payloads,
		wire_bytes: freeWire + professionalWire,
		total_bytes: payloads + freeWire + professionalWire,
	});

	await purgeAt(new Date(start + 3 * DAY - 60_000));
	expect((await a.call("GET", `/v1/messages/${free}/attempts/1/request`)).status).toBe(200);

	await purgeAt(new Date(start + 3 * DAY + 60_000));
	const [purged] = (await a.call("GET", `/v1/messages/${free}/attempts`)).json.data;
	expect(purged).toMatchObject({ number: 1, outcome: "succeeded", wire: { request: null, response: null, mdn: null } });
	expect(await blobs.stat(captured!.request!.blobKey)).toBeNull();
	expect(await blobs.stat(captured!.response!.blobKey)).toBeNull();
	expect((await a.call("GET", `/v1/messages/${free}/attempts/1/request`)).status).toBe(404);
	expect((await storageOfA()).wire_bytes).toBe(professionalWire);
	// The Professional message's captures outlive the Free one's by 27 days.
	expect((await a.call("GET", `/v1/messages/${professional}/attempts/1/request`)).status).toBe(200);
	await purgeAt(new Date(start + 30 * DAY + 3_600_000));
	expect((await a.call("GET", `/v1/messages/${professional}/attempts/1/response`)).status).toBe(404);
	expect((await storageOfA()).wire_bytes).toBe(0);
});

it("usage counts this month's live messages against the plan", async () => {
	const usage = (await pair.a.call("GET", "/v1/account/usage")).json.data;
	expect(usage).toMatchObject({ account_id: pair.a.accountId, plan: "professional" });
	expect(usage.live_messages).toEqual({ used: 2, limit: 100_000 });
	expect(usage.live_bytes).toBeGreaterThan(0);
	expect(usage.period.start).toMatch(/^\d{4}-\d{2}-01T00:00:00\.000000Z$/);
});

// Issue #20: the sync MDN B answers with is its receipt's response from the moment the message
// is stored, written in the same transaction: no update of the attempt after it, one commit less.
it("writes a received message's receipt with the sync MDN it answers with, in the message's transaction", async () => {
	const { a, b } = pair;
	const attempts = b.server.store.messageAttempts;
	const original = attempts.update;
	const update = vi.fn(original);
	attempts.update = update;
	try {
		const id = await sendMessage(a, partnerOnA);
		expect((await settled(a, id)).status).toBe("delivered");
	} finally {
		attempts.update = original;
	}
	expect(update).not.toHaveBeenCalled();
	const [received] = (await b.call("GET", "/v1/messages?direction=inbound&per_page=1")).json.data;
	const sent = await b.call("GET", `/v1/messages/${received.id}/attempts/1/response?part=headers`);
	expect(sent.text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*content-type: multipart\/signed/i);
});
