import type {
	MessageListFilter,
	MessageRecord,
	MessageStatus,
	PartnerTraffic,
	RejectedMdn,
} from "./message-records.ts";
import type { Page, PageRequest } from "./pagination.ts";

export type MessagePatch = Partial<Omit<MessageRecord, "id" | "accountId" | "tenantId" | "direction" | "createdAt">>;

export interface MessageStore {
	/** Throws CONFLICT (`messages.…message_id`) for a second inbound message with one Message-ID from one partner. */
	create(message: MessageRecord): Promise<void>;
	/**
	 * `create` under a new `msg_` id, the one `ids.next("msg_")` would have given, resolving to
	 * it: in one statement where the store can (issue #20). Throws as `create` does.
	 */
	createNew(message: Omit<MessageRecord, "id">): Promise<string>;
	get(tenantId: string, id: string): Promise<MessageRecord | null>;
	/** Any tenant's message, for workers that hold its id. */
	getById(id: string): Promise<MessageRecord | null>;
	/** The message of one tenant, partner and direction with this AS2 Message-ID (duplicate detection, MDN matching). */
	findByMessageId(
		tenantId: string,
		messageId: string,
		filter: { direction: "inbound" | "outbound"; partnerId?: string },
	): Promise<MessageRecord | null>;
	/** Newest first. */
	list(tenantId: string, filter: MessageListFilter, page: PageRequest): Promise<Page<MessageRecord>>;
	/**
	 * Compare-and-set on the status: applies `patch` only while the message is in one of `from`;
	 * null otherwise. Every state change goes through here, so two workers cannot both move a
	 * message (interface spec, States and transitions).
	 */
	transition(id: string, from: readonly MessageStatus[], patch: MessagePatch): Promise<MessageRecord | null>;
	/** A patch that does not change the status (attempt bookkeeping, MDN details). */
	update(id: string, patch: Omit<MessagePatch, "status">): Promise<MessageRecord | null>;
	/**
	 * Appends a rejected MDN to the message's `rejectedMdns`, keeping the newest `keep`, in one
	 * atomic step (concurrent MDNs all land); null when there is no such message.
	 */
	addRejectedMdn(id: string, entry: RejectedMdn, keep: number): Promise<MessageRecord | null>;
	/** Outbound messages `sent` with an MDN pending whose deadline passed: the MDN timeout scan. */
	listMdnOverdue(now: Date, limit: number): Promise<MessageRecord[]>;
	/** Traffic with one partner since `since` (statistics, recent activity by UTC day). */
	partnerTraffic(tenantId: string, partnerId: string, since: Date): Promise<PartnerTraffic>;
}
