import type { MessageAttemptRecord, MessageRecord, WireCapture } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import type { Principal } from "../principal.ts";
import { notFound } from "../validation-error.ts";
import type { createMessageReads } from "./message-reads.ts";

export type WireSide = "request" | "response" | "mdn";

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
		async list(principal: Principal, id: string) {
			const message = await reads.get(principal, id);
			return { message, attempts: await store.messageAttempts.list(message.tenantId, message.id) };
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
			if (!info) throw missing();
			return {
				message,
				attempt,
				side,
				head: capture.head,
				bodyBytes: info.bytes,
				async openBody() {
					const body = await blobs.get(capture.blobKey);
					if (!body) throw missing();
					return body;
				},
			};
		},
	};
}
