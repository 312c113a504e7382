import { rmSync } from "node:fs";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { measureStorageHandler } from "../../src/service/billing/storage-usage.ts";
import type { Logger } from "../../src/service/deps.ts";
import { DOCUMENT_20 } from "../helpers/epcis-documents.ts";
import { sample } from "../helpers/metrics-text.ts";
import { addPartner, type Peer, sendMessage, settled, startPeer } from "../helpers/peers.ts";
import { createTestPki, type TestPki } from "../helpers/tls.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";
import { eventually } from "../helpers/worker.ts";

/**
 * Issue #18, Metrics and logs: two reference servers in-process exchange real AS2 over
 * loopback HTTPS; `/metrics` must count what happened and A's pino log must hold one line per
 * transmission attempt and per final failure, with no payload bytes or secrets.
 */
interface LogLine {
	level: number;
	msg: string;
	[key: string]: unknown;
}

const PAYLOAD_MARKER = "payload-bytes-never-logged";
const PARTNER_PASSWORD = "partner-password-never-logged";

let pki: TestPki;
let a: Peer;
let b: Peer;
let partnerOnA: string;
let partnerOnB: string;
let refusing: Receiver;
let hooks: Receiver;
const lines: LogLine[] = [];

beforeAll(async () => {
	pki = createTestPki();
	const sink = {
		write(chunk: string) {
			for (const line of chunk.split("\n").filter(Boolean)) lines.push(JSON.parse(line));
		},
	};
	const logger = pino({ level: "info" }, sink) as unknown as Logger;
	a = await startPeer("MetricsA", pki, {}, { logger });
	b = await startPeer("MetricsB", pki);
	partnerOnA = await addPartner(a, b, pki);
	partnerOnB = await addPartner(b, a, pki);
	// A partner that answers 503 once, then 400: a retried attempt, then a final rejection.
	refusing = await startReceiver((_request, index) => (index === 0 ? 503 : 400));
	hooks = await startReceiver(() => 200);
});
afterAll(async () => {
	await Promise.all([a?.server.close(), b?.server.close(), refusing?.close(), hooks?.close()]);
	if (pki) rmSync(pki.dir, { recursive: true, force: true });
});

async function scrape(peer: Peer): Promise<string> {
	const response = await peer.server.app.request("/metrics");
	expect(response.status).toBe(200);
	return response.text();
}

/** How much `name{labels}` grew on `peer` while `action` ran. */
async function growth(peer: Peer, name: string, labels: Record<string, string>, action: () => Promise<unknown>) {
	const before = sample(await scrape(peer), name, labels) ?? 0;
	await action();
	return (sample(await scrape(peer), name, labels) ?? 0) - before;
}

describe("/metrics after real traffic", () => {
	it("a delivered send: message, attempt, MDN wait (sync and async), the partner's received message, a webhook", async () => {
		const endpoint = await a.call("POST", "/v1/webhook-endpoints", { url: hooks.url, events: ["message.delivered"] });
		expect(endpoint.status, endpoint.text).toBe(201);
		const sync = await sendMessage(a, partnerOnA, { mdn_mode: "sync" });
		expect((await settled(a, sync)).status).toBe("delivered");
		const async = await sendMessage(a, partnerOnA, { mdn_mode: "async" });
		expect((await settled(a, async)).status).toBe("delivered");
		await eventually(async () => hooks.requests.length >= 2, "both webhooks");
		const onA = await eventually(async () => {
			const text = await scrape(a);
			return (sample(text, "as2kit_webhook_deliveries_total", { outcome: "succeeded" }) ?? 0) >= 2 ? text : null;
		}, "the webhook deliveries counted");
		expect(
			sample(onA, "as2kit_messages_total", { direction: "outbound", status: "delivered", environment: "live" }),
		).toBe(2);
		expect(sample(onA, "as2kit_transmission_attempts_total", { outcome: "sent", http_status: "200" })).toBe(2);
		expect(sample(onA, "as2kit_transmission_duration_seconds_count", { outcome: "sent" })).toBe(2);
		expect(sample(onA, "as2kit_mdn_wait_seconds_count", { via: "sync" })).toBe(1);
		expect(sample(onA, "as2kit_mdn_wait_seconds_count", { via: "async" })).toBe(1);
		expect(sample(onA, "as2kit_webhook_delivery_lag_seconds_count", { outcome: "succeeded" })).toBe(2);
		const onB = await scrape(b);
		expect(
			sample(onB, "as2kit_messages_total", { direction: "inbound", status: "received", environment: "live" }),
		).toBe(2);
		// Each side's identity certificate: days to expiry for its tenant, from its own store.
		const identity = (await a.call("GET", "/v1/certificates?type=identity")).json.data[0];
		const days = sample(onA, "as2kit_certificate_expiry_days", { tenant_id: a.tenantId, owner: "tenant" });
		const expected = (Date.parse(identity.expires_at) - Date.now()) / 86_400_000;
		expect(days).toBeGreaterThan(expected - 1);
		expect(days).toBeLessThan(expected + 1);
		// The storage measure (a periodic task), run now: the payloads A keeps, per account.
		await measureStorageHandler(a.server.service.deps)({} as never, {} as never);
		const payloads = (await a.call("GET", "/v1/messages")).json.data.reduce(
			(sum: number, m: { bytes: number }) => sum + m.bytes,
			0,
		);
		const measured = await scrape(a);
		expect(sample(measured, "as2kit_storage_bytes", { account_id: a.accountId, kind: "payload" })).toBe(payloads);
		expect(sample(measured, "as2kit_storage_bytes", { account_id: a.accountId, kind: "wire" })).toBeGreaterThan(0);
		expect(onA).toContain("# TYPE as2kit_jobs gauge");
		expect(onA).toContain("# TYPE as2kit_job_oldest_due_age_seconds gauge");
	});

	it("a failed send: a retried attempt, a rejected one, the final failure; logged without payload or password", async () => {
		const partner = await a.call("POST", "/v1/partners", {
			name: "Refusing",
			as2_id: "REFUSING",
			url: `${refusing.url.replace("/hooks", "")}/as2`,
			http: { auth: { username: "as2", password: PARTNER_PASSWORD } },
			connection: { retry_attempts: 1, retry_interval_seconds: 1 },
		});
		expect(partner.status, partner.text).toBe(201);
		const before = await scrape(a);
		const id = await sendMessage(a, partner.json.data.id, {
			sign: false,
			encrypt: false,
			mdn_mode: "none",
			payload: { content: PAYLOAD_MARKER },
		});
		const failed = await settled(a, id);
		expect(failed).toMatchObject({ status: "failed", errorCode: "PARTNER_REJECTED", attempts: 2 });
		const after = await scrape(a);
		const grew = (name: string, labels: Record<string, string>) =>
			(sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
		expect(grew("as2kit_messages_total", { direction: "outbound", status: "failed", environment: "live" })).toBe(1);
		expect(
			grew("as2kit_transmission_attempts_total", {
				outcome: "retry",
				error_code: "PARTNER_UNREACHABLE",
				http_status: "503",
			}),
		).toBe(1);
		expect(
			grew("as2kit_transmission_attempts_total", {
				outcome: "rejected",
				error_code: "PARTNER_REJECTED",
				http_status: "400",
			}),
		).toBe(1);

		const ofMessage = lines.filter((line) => line.messageId === id);
		const attempts = ofMessage.filter((line) => line.msg === "transmission attempt");
		expect(attempts.map((line) => [line.attempt, line.outcome, line.errorCode, line.httpStatus])).toEqual([
			[1, "retry", "PARTNER_UNREACHABLE", 503],
			[2, "rejected", "PARTNER_REJECTED", 400],
		]);
		for (const line of attempts) {
			expect(line).toMatchObject({ partnerId: partner.json.data.id, level: 40 });
			expect(typeof line.durationMs).toBe("number");
		}
		const failures = ofMessage.filter((line) => line.msg === "message failed");
		expect(failures).toEqual([
			expect.objectContaining({ partnerId: partner.json.data.id, attempt: 2, errorCode: "PARTNER_REJECTED" }),
		]);
		expect(typeof failures[0]?.durationMs).toBe("number");
		const everything = JSON.stringify(lines);
		expect(everything).not.toContain(PAYLOAD_MARKER);
		expect(everything).not.toContain(Buffer.from(PAYLOAD_MARKER).toString("base64"));
		expect(everything).not.toContain(PARTNER_PASSWORD);
	});

	it("a cancelled message counts as cancelled, not as a failure an alert would page for", async () => {
		const labels = (status: string) => ({ direction: "outbound", status, environment: "live" });
		const before = await scrape(a);
		const sent = await a.call("POST", "/v1/messages", {
			partner_id: partnerOnA,
			content_type: "text/plain",
			payload: { content: "for tomorrow" },
			scheduled_at: new Date(Date.now() + 86_400_000).toISOString(),
		});
		expect(sent.status, sent.text).toBe(202);
		const cancelled = await a.call("POST", `/v1/messages/${sent.json.data.id}/cancel`);
		expect(cancelled.status, cancelled.text).toBe(200);
		expect(cancelled.json.data).toMatchObject({ status: "failed", error_code: "CANCELLED" });
		const after = await scrape(a);
		const grew = (status: string) =>
			(sample(after, "as2kit_messages_total", labels(status)) ?? 0) -
			(sample(before, "as2kit_messages_total", labels(status)) ?? 0);
		expect(grew("cancelled")).toBe(1);
		expect(grew("failed")).toBe(0);
		expect(lines.filter((line) => line.messageId === sent.json.data.id && line.msg === "message failed")).toEqual([]);
	});

	it("a delivered attempt is one info line with the message, partner, attempt and duration", async () => {
		const id = await sendMessage(a, partnerOnA, { mdn_mode: "sync" });
		await settled(a, id);
		const attempts = lines.filter((line) => line.messageId === id && line.msg === "transmission attempt");
		expect(attempts).toEqual([
			expect.objectContaining({
				level: 30,
				partnerId: partnerOnA,
				attempt: 1,
				outcome: "sent",
				errorCode: null,
				httpStatus: 200,
			}),
		]);
		expect(lines.filter((line) => line.messageId === id && line.msg === "message failed")).toEqual([]);
	});

	it("a negative MDN: the sender's failure, the receiver's processing refusal by error code", async () => {
		await b.call("PATCH", `/v1/partners/${partnerOnB}`, { inbound: { require_signed: true } });
		try {
			const refusedOnB = await growth(
				b,
				"as2kit_inbound_refusals_total",
				{ reason: "processing_error", error_code: "INSUFFICIENT_MESSAGE_SECURITY" },
				async () => {
					const id = await sendMessage(a, partnerOnA, { sign: false, mdn_mode: "sync" });
					expect((await settled(a, id)).status).toBe("failed");
				},
			);
			expect(refusedOnB).toBe(1);
		} finally {
			await b.call("PATCH", `/v1/partners/${partnerOnB}`, { inbound: { require_signed: false } });
		}
	});

	it("inbound refusals by reason: malformed headers, unknown partners (4xx and negative MDN)", async () => {
		const post = (headers: Record<string, string>) =>
			b.server.app.request("/as2/receive", {
				method: "POST",
				headers: { "content-type": "application/octet-stream", ...headers },
				body: "not a message",
			});
		const malformed = await growth(b, "as2kit_inbound_refusals_total", { reason: "malformed" }, async () => {
			expect((await post({})).status).toBe(400);
		});
		expect(malformed).toBe(1);
		const unknown = await growth(b, "as2kit_inbound_refusals_total", { reason: "unknown_partner" }, async () => {
			const routed = { "as2-to": b.as2Id, "as2-from": "NOBODY", "message-id": "<m1@nobody.example>" };
			expect((await post(routed)).status).toBe(404);
			const negative = await post({ ...routed, "disposition-notification-to": "mailto:x@nobody.example" });
			expect(negative.status).toBe(200);
			expect(await negative.text()).toContain("unknown-trading-partner");
		});
		expect(unknown).toBe(2);
	});

	it("the test environment's simulated sends count apart from live traffic", async () => {
		const created = await a.call("POST", "/v1/api-keys", {
			name: "test key",
			scope: "account",
			environment: "test",
			permissions: ["*"],
		});
		expect(created.status, created.text).toBe(201);
		const testKey = created.json.data.key as string;
		const live = { direction: "outbound", status: "delivered", environment: "live" };
		const before = sample(await scrape(a), "as2kit_messages_total", live);
		const simulated = await growth(
			a,
			"as2kit_messages_total",
			{ direction: "outbound", status: "delivered", environment: "test" },
			async () => {
				const sent = await a.server.app.request("/v1/messages", {
					method: "POST",
					headers: { authorization: `Bearer ${testKey}`, "content-type": "application/json" },
					body: JSON.stringify({ partner_id: partnerOnA, content_type: "text/plain", payload: { content: "x" } }),
				});
				expect(sent.status).toBe(202);
				const { data } = (await sent.json()) as { data: { id: string } };
				await settled(a, data.id);
			},
		);
		expect(simulated).toBe(1);
		expect(sample(await scrape(a), "as2kit_messages_total", live)).toBe(before);
	});

	it("EPCIS validations by outcome", async () => {
		const valid = await growth(a, "as2kit_epcis_validations_total", { outcome: "valid" }, async () => {
			const response = await a.call("POST", "/v1/epcis/validate", {
				document: DOCUMENT_20,
				validation_rules: ["schema_compliance"],
			});
			expect(response.json.valid, response.text).toBe(true);
		});
		const invalid = await growth(a, "as2kit_epcis_validations_total", { outcome: "invalid" }, async () => {
			const response = await a.call("POST", "/v1/epcis/validate", { document: "<not-epcis/>" });
			expect(response.json.valid, response.text).toBe(false);
		});
		expect([valid, invalid]).toEqual([1, 1]);
	});
});
