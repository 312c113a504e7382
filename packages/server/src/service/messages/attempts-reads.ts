import type { AttemptOutcome, MessageAttemptRecord, MessageRecord, WireCapture } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import type { Principal } from "../principal.ts";
import { notFound } from "../validation-error.ts";
import { partOf } from "./attempt-wire.ts";
import type { createMessageReads } from "./message-reads.ts";

export type WireSide = "request" | "response" | "mdn";

/** An attempt as listed: a recorded one, or the one a worker is making now (`in_progress`). */
export type ListedAttempt = Omit<MessageAttemptRecord, "outcome"> & { outcome: AttemptOutcome | "in_progress" };

/**
 * The attempt under way, while the message is `processing`: its row is written with its
 * outcome (in the transaction of the message's state change), so until then it is told from
 * the message — which attempt, since when, to where — without a write on the send's path.
 */
function attemptUnderWay(message: MessageRecord, recorded: readonly MessageAttemptRecord[]): ListedAttempt | null {
	if (message.direction !== "outbound" || message.status !== "processing" || message.attempts < 1) return null;
	if (recorded.some((a) => a.number === message.attempts)) return null;
	return {
		tenantId: message.tenantId,
		messageId: message.id,
		number: message.attempts,
		direction: "outbound",
		startedAt: message.lastAttemptAt ?? message.updatedAt,
		finishedAt: null,
		url: message.partnerUrl,
		httpStatus: null,
		bytesSent: null,
		bytesReceived: null,
		outcome: "in_progress",
		errorCode: null,
		errorMessage: null,
		tlsVersion: null,
		peerCertificateSha256: null,
		phases: {},
		request: null,
		response: null,
		mdn: null,
		wireExpiresAt: null,
	};
}

/** What a wire download is made of: the head as text and the body streamed from the blob store. */
export interface WireDownload {
	message: MessageRecord;
	attempt: MessageAttemptRecord;
	side: WireSide;
	head: string;
	bodyBytes: number;
	openBody(): Promise<ReadableStream<Uint8Array>>;
}

/** `GET /v1/messages/{id}/attempts` and the wire downloads of each attempt (issue #18, section 2). */
export function createAttemptReads(deps: ServiceDeps, reads: ReturnType<typeof createMessageReads>) {
	const { store, blobs } = deps;
	return {
		/** The message (messages:read, this tenant's) and its attempts by number. */
		async list(principal: Principal, id: string): Promise<{ message: MessageRecord; attempts: ListedAttempt[] }> {
			const message = await reads.get(principal, id);
			const recorded = await store.messageAttempts.list(message.tenantId, message.id);
			const underWay = attemptUnderWay(message, recorded);
			return { message, attempts: underWay ? [...recorded, underWay] : recorded };
		},

		async wire(principal: Principal, id: string, number: number, side: WireSide): Promise<WireDownload> {
			const message = await reads.get(principal, id);
			const attempt = await store.messageAttempts.get(message.tenantId, message.id, number);
			if (!attempt) throw notFound(`attempt ${number} of message ${id}`);
			const capture: WireCapture | null = attempt[side];
			const missing = () =>
				notFound(`the ${side} of attempt ${number} of message ${id} (not captured, or past retention)`);
			if (!capture) throw missing();
			const info = await blobs.stat(capture.blobKey);
			// A part of a blob (the request and its answer share one) is `bytes` from `offset`.
			const { offset } = capture;
			if (!info || (offset !== undefined && info.bytes < offset + capture.bytes)) throw missing();
			return {
				message,
				attempt,
				side,
				head: capture.head,
				bodyBytes: offset === undefined ? info.bytes : capture.bytes,
				async openBody() {
					const body = await blobs.get(capture.blobKey);
					if (!body) throw missing();
					return offset === undefined ? body : partOf(body, offset, capture.bytes);
				},
			};
		},
	};
}
