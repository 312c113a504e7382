import type { MessageRecord } from "@as2kit/core/store";
import type { TestApp } from "./test-app.ts";

/**
 * A stored message as the sending and receiving pipeline leaves it (the shape of the storage
 * conformance fixture), for tests that read messages without sending any.
 */
export function messageRecord(
	owner: { accountId: string; tenantId: string },
	id: string,
	overrides: Partial<MessageRecord> = {},
): MessageRecord {
	const createdAt = overrides.createdAt ?? new Date("2026-03-01T09:00:00.000Z");
	return {
		id,
		accountId: owner.accountId,
		tenantId: owner.tenantId,
		environment: "live",
		direction: "outbound",
		messageId: `${id}@as2kit.example`,
		partnerId: "prt_000001",
		partnerName: "Partner",
		partnerAs2Id: "PARTNER",
		partnerUrl: "https://partner.example/as2",
		status: "queued",
		fromAs2Id: "ME",
		toAs2Id: "PARTNER",
		subject: `Order ${id}`,
		contentType: "application/edi-x12",
		filename: null,
		bytes: 100,
		compressed: false,
		encrypted: true,
		signed: true,
		mdnMode: "sync",
		mdnStatus: "pending",
		mdnData: null,
		rejectedMdns: [],
		mic: null,
		priority: "normal",
		headers: {},
		payloadKey: null,
		scheduledAt: null,
		attempts: 0,
		lastAttemptAt: null,
		sentAt: null,
		deliveredAt: null,
		failedAt: null,
		mdnDeadline: null,
		errorCode: null,
		errorMessage: null,
		transmissionTimeMs: null,
		details: {},
		createdAt,
		updatedAt: createdAt,
		...overrides,
	};
}

/** Stores a message of `owner`'s tenant with the next `msg_` id; returns the record. */
export async function storeMessage(
	t: TestApp,
	owner: { accountId: string; tenantId: string },
	overrides: Partial<MessageRecord> = {},
): Promise<MessageRecord> {
	const record = messageRecord(owner, await t.store.ids.next("msg_"), overrides);
	await t.store.messages.create(record);
	return record;
}

/** A stream of `size` deterministic bytes in chunks of `chunk`, never all in memory at once. */
export function patternStream(size: number, chunk = 64 * 1024): ReadableStream<Uint8Array> {
	let sent = 0;
	return new ReadableStream({
		pull(controller) {
			if (sent >= size) return controller.close();
			const n = Math.min(chunk, size - sent);
			const bytes = new Uint8Array(n);
			for (let i = 0; i < n; i++) bytes[i] = ((sent + i) * 31 + 7) & 0xff;
			sent += n;
			controller.enqueue(bytes);
		},
	});
}

/** Stream of plain bytes, for small payloads. */
export function bytesStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
	return new ReadableStream({
		start(controller) {
			controller.enqueue(bytes);
			controller.close();
		},
	});
}
