import type { Json } from "./records.ts";

/** Message status (interface spec, States and transitions). `delivered`, `failed` and `received` are final. */
export type MessageStatus = "queued" | "processing" | "sent" | "delivered" | "failed" | "received";
/** For outbound messages the MDN we await; for inbound ones the MDN we return (`received` = delivered to the partner). */
export type MdnStatus = "none" | "pending" | "received" | "failed" | "timeout";
export type MessagePriority = "low" | "normal" | "high";

/** The MDN of a message (interface spec, MDN data object), plus what we checked. */
export interface MdnData {
	disposition: string;
	receivedContentMic: string | null;
	reportingUa: string | null;
	originalMessageId: string;
	finalRecipient: string | null;
	signed: boolean;
	/** Outbound: whether the MDN's signature and MIC checked out; null when not applicable. */
	signatureValid: boolean | null;
	micMatches: boolean | null;
	/**
	 * Outbound: a positive MDN without Received-Content-MIC, taken as the receipt of a message
	 * we did not sign (RFC 4130 §7.4.3; pyas2-lib). Absent in records written before it existed.
	 */
	micMissing?: boolean;
	/** AS2 Message-ID of the MDN itself, when it had one. */
	messageId: string | null;
	receivedAt: string;
}

/**
 * An MDN that came for an outbound message and settled nothing: unsigned where we asked for a
 * signed one, signed by a key that is not the partner's, or an unauthenticated MDN whose MIC
 * does not prove it is about our message. Anyone can POST an MDN, so such an MDN is kept for
 * the record while the message waits for a valid one (until its MDN deadline).
 */
export interface RejectedMdn {
	receivedAt: string;
	/** Why it settled nothing. */
	reason: string;
	disposition: string;
	originalMessageId: string;
	/** AS2 Message-ID of the MDN itself, when it had one. */
	messageId: string | null;
	reportingUa: string | null;
	receivedContentMic: string | null;
	signed: boolean;
	/** null when unsigned. */
	signatureValid: boolean | null;
}

export interface MessageRecord {
	/** `msg_…` */
	id: string;
	accountId: string;
	tenantId: string;
	environment: "test" | "live";
	direction: "inbound" | "outbound";
	/** The AS2 Message-ID, without angle brackets; kept across retries so the partner can de-duplicate. */
	messageId: string;
	partnerId: string;
	/** The partner as it was when the message was made: history outlives a deleted partner. */
	partnerName: string;
	partnerAs2Id: string;
	partnerUrl: string;
	status: MessageStatus;
	fromAs2Id: string;
	toAs2Id: string;
	subject: string | null;
	contentType: string;
	filename: string | null;
	bytes: number;
	compressed: boolean;
	encrypted: boolean;
	signed: boolean;
	mdnMode: "sync" | "async" | "none";
	mdnStatus: MdnStatus;
	mdnData: MdnData | null;
	/** Outbound: MDNs that were received and rejected, oldest first (the most recent few). */
	rejectedMdns: RejectedMdn[];
	/** Outbound: the MIC the partner's MDN must return; inbound: the MIC we computed. `base64, sha-256`. */
	mic: string | null;
	priority: MessagePriority;
	/** Custom AS2 headers sent with an outbound message. */
	headers: Record<string, string>;
	/** Blob key of the payload (outbound: as submitted; inbound: as unpacked). */
	payloadKey: string | null;
	scheduledAt: Date | null;
	attempts: number;
	lastAttemptAt: Date | null;
	sentAt: Date | null;
	deliveredAt: Date | null;
	failedAt: Date | null;
	/** The async MDN must arrive before this instant, or the message fails with MDN_TIMEOUT. */
	mdnDeadline: Date | null;
	errorCode: string | null;
	errorMessage: string | null;
	transmissionTimeMs: number | null;
	/** Inbound details (layers, algorithms, MDN request) and other facts worth keeping. */
	details: { [key: string]: Json };
	createdAt: Date;
	updatedAt: Date;
}

export interface MessageListFilter {
	partnerId?: string;
	status?: MessageStatus;
	direction?: "inbound" | "outbound";
	environment?: "test" | "live";
	/** created_at > fromDate */
	fromDate?: Date;
	/** created_at < toDate */
	toDate?: Date;
	/** Substring of the subject or the AS2 Message-ID, case-insensitive. */
	search?: string;
	contentType?: string;
	/** Messages that met a transmission error (error_code set) or not. */
	hasErrors?: boolean;
	mdnStatus?: MdnStatus;
	encrypted?: boolean;
	signed?: boolean;
}

/** A partner's traffic as one tenant saw it. */
export interface PartnerTraffic {
	sent: number;
	received: number;
	/** Outbound messages that ended delivered, or sent without an MDN requested. */
	outboundSucceeded: number;
	outboundFailed: number;
	inboundFailed: number;
	/** Mean seconds from creation to delivery (outbound) and of inbound processing; null without data. */
	avgOutboundSeconds: number | null;
	avgInboundSeconds: number | null;
	lastMessageAt: Date | null;
	/** Per UTC day, oldest first, only days with traffic. */
	days: { date: string; sent: number; received: number; failures: number }[];
}
