import type { EventRecord, MessageListFilter, MessageRecord, Page, PageRequest } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import { type Principal, requirePermission } from "../principal.ts";
import { notFound } from "../validation-error.ts";

/**
 * How many matching messages a list counts past the requested offset. Beyond it the total
 * is a lower bound (`totalExact: false`): an exact count of a million rows costs more than
 * the page itself, and the bound moves on with the page, so paging never ends early.
 */
export const MESSAGE_COUNT_LIMIT = 10_000;

/** A stored payload found: `open()` streams its bytes, read only as the stream is consumed. */
export interface PayloadDownload {
	message: MessageRecord;
	bytes: number;
	open(): Promise<ReadableStream<Uint8Array>>;
}

/** The events a timeline shows at most: a message has a handful per attempt, retries bounded. */
const TIMELINE_EVENTS = 1000;

/** Reading a tenant's messages and their payloads (interface spec, Messages: the GET endpoints). */
export function createMessageReads(deps: ServiceDeps) {
	const { store, blobs } = deps;

	async function get(principal: Principal, id: string): Promise<MessageRecord> {
		requirePermission(principal, "messages:read");
		const message = await store.messages.get(principal.tenantId, id);
		if (!message) throw notFound(`message ${id}`);
		return message;
	}

	return {
		get,

		/**
		 * Every event of the message in the order it happened (its outbox events, found by the
		 * message id): each state change with its data and the attempt it belongs to.
		 */
		async timeline(principal: Principal, id: string): Promise<EventRecord[]> {
			const message = await get(principal, id);
			return store.events.list({
				accountId: message.accountId,
				tenantId: message.tenantId,
				subjectId: message.id,
				limit: TIMELINE_EVENTS,
			});
		},

		/** Newest first; test and live messages alike unless `filter.environment` says (decisions.md). */
		async list(principal: Principal, filter: MessageListFilter, page: PageRequest): Promise<Page<MessageRecord>> {
			requirePermission(principal, "messages:read");
			// Message-IDs are stored without their angle brackets (decisions.md): find a pasted one too.
			const search = filter.search?.replace(/^<(.+)>$/, "$1");
			return store.messages.list(
				principal.tenantId,
				{ ...filter, ...(search === undefined ? {} : { search }) },
				{ ...page, countLimit: MESSAGE_COUNT_LIMIT },
			);
		},

		/** The payload as stored (outbound: as submitted; inbound: as unpacked), streamed from the blob store. */
		async payload(principal: Principal, id: string): Promise<PayloadDownload> {
			const message = await get(principal, id);
			const missing = () => notFound(`the payload of message ${id}`);
			if (!message.payloadKey) throw missing();
			const key = message.payloadKey;
			const info = await blobs.stat(key);
			if (!info) throw missing();
			return {
				message,
				bytes: info.bytes,
				async open() {
					const body = await blobs.get(key);
					if (!body) throw missing();
					return body;
				},
			};
		},
	};
}
