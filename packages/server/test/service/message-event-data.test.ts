/**
 * message-views.ts: the 202 answer of a submission and the data of the message events are
 * built field by field (not picked from a whole message view). Pinned here: the same fields,
 * values and key order as the whole view has them (the order is what a webhook's JSON body
 * shows), for a message in each state the events report.
 */
import type { MessageRecord } from "@as2kit/core/store";
import { describe, expect, it } from "vitest";
import { messageEventData, messageView, queuedView } from "../../src/service/views/message-views.ts";
import { messageRecord } from "../helpers/messages.ts";

const owner = { accountId: "acc_000001", tenantId: "ten_000001" };
const at = new Date("2026-03-01T09:00:01.234Z");

const states: Record<string, Partial<MessageRecord>> = {
	queued: {},
	sent: { status: "sent", attempts: 1, sentAt: at, transmissionTimeMs: 42, lastAttemptAt: at },
	delivered: {
		status: "delivered",
		attempts: 1,
		sentAt: at,
		deliveredAt: at,
		mdnStatus: "received",
		mdnData: {
			disposition: "automatic-action/MDN-sent-automatically; processed",
			receivedContentMic: "abc=, sha-256",
			reportingUa: "partner",
			originalMessageId: "m@x",
			finalRecipient: "ME",
			signed: true,
			signatureValid: true,
			micMatches: true,
			micMissing: false,
			messageId: "mdn@x",
			receivedAt: at.toISOString(),
		},
	},
	failed: {
		status: "failed",
		attempts: 3,
		failedAt: at,
		errorCode: "MIC_MISMATCH",
		errorMessage: "the MDN's MIC is not ours",
		details: { error_hint: { setting: "mic_algorithm", value: "sha1", why: "a partner quirk" } },
	},
	received: { direction: "inbound", status: "received", attempts: 1, mdnMode: "none", mdnStatus: "none" },
};

/** The keys of `view` named, in the order named: what a pick from the whole view gives. */
function pick(view: Record<string, unknown>, keys: string[]): Record<string, unknown> {
	return Object.fromEntries(keys.map((key) => [key, view[key]]));
}

const QUEUED_KEYS = [
	"id",
	"message_id",
	"partner",
	"status",
	"direction",
	"subject",
	"content_type",
	"bytes",
	"compressed",
	"encrypted",
	"signed",
	"mdn_mode",
	"created_at",
];
const EVENT_START = ["id", "message_id", "partner", "status", "direction", "attempts"];

describe("the queued view and the message events' data", () => {
	it("queuedView is the whole view's queued fields, in its order", () => {
		for (const overrides of Object.values(states)) {
			const message = messageRecord(owner, "msg_000001", overrides);
			expect(JSON.stringify(queuedView(message))).toBe(JSON.stringify(pick(messageView(message), QUEUED_KEYS)));
		}
	});

	it("each event's data has the fields of the interface spec, in order, valued as the whole view values them", () => {
		const data = (kind: keyof typeof messageEventData) =>
			JSON.stringify(messageEventData[kind](messageRecord(owner, "msg_000001", states[kind])));
		const view = (kind: string) => messageView(messageRecord(owner, "msg_000001", states[kind]));
		expect(data("queued")).toBe(
			JSON.stringify(pick(view("queued"), [...EVENT_START, "subject", "content_type", "bytes", "created_at"])),
		);
		expect(data("sent")).toBe(
			JSON.stringify({ ...pick(view("sent"), [...EVENT_START, "sent_at"]), transmission_time_ms: 42 }),
		);
		const delivered = view("delivered");
		expect(data("delivered")).toBe(
			JSON.stringify({
				...pick(delivered, EVENT_START),
				mdn_data: {
					disposition: "automatic-action/MDN-sent-automatically; processed",
					received_content_mic: "abc=, sha-256",
					reporting_ua: "partner",
					original_message_id: "m@x",
					final_recipient: "ME",
					signed: true,
					signature_valid: true,
					mic_matches: true,
					mic_missing: false,
					received_at: "2026-03-01T09:00:01.234000Z",
				},
				delivered_at: delivered.delivered_at,
			}),
		);
		const failed = view("failed");
		expect(failed.error_hint).not.toBeNull();
		expect(data("failed")).toBe(
			JSON.stringify({
				...pick(failed, [...EVENT_START, "error_code", "error_message", "error_hint"]),
				failed_at: "2026-03-01T09:00:01.234000Z",
			}),
		);
		expect(data("received")).toBe(
			JSON.stringify({
				...pick(view("received"), [
					...EVENT_START,
					"from_as2_id",
					"to_as2_id",
					"subject",
					"content_type",
					"bytes",
					"encrypted",
					"signed",
				]),
				mdn_requested: false,
				received_at: "2026-03-01T09:00:00.000000Z",
			}),
		);
	});

	it("message.sent reports sent even when the move went on to delivered", () => {
		const message = messageRecord(owner, "msg_000001", { ...states.delivered, sentAt: at });
		expect(messageEventData.sent(message).status).toBe("sent");
	});
});
