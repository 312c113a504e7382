/**
 * Transmission attempts of a message (issue #18, section 2): one row per POST of an outbound
 * message to its partner, or per receipt of an inbound one, with what the transport measured
 * and where its wire capture lives in the blob store.
 */

/** `succeeded`: the partner took it (2xx); `retrying`: failed, another attempt is scheduled; `failed`: final. */
export type AttemptOutcome = "succeeded" | "retrying" | "failed";

/** Milliseconds per phase, each present only where the transport knew it. */
export interface AttemptPhases {
	buildMs?: number;
	connectMs?: number;
	tlsMs?: number;
	sendMs?: number;
	/** From the last byte sent to the answer's last byte (a sync MDN is made in this time). */
	waitMs?: number;
}

/** One side of an exchange as it crossed the wire: its head (start line and headers) and its body's blob. */
export interface WireCapture {
	/** The start line and header fields as sent or received, ending with the empty line. */
	head: string;
	/** The body's blob key (BlobStore); its size is the blob's unless `offset` is set. */
	blobKey: string;
	bytes: number;
	/**
	 * Set when the body is a part of its blob: `bytes` from here. A request and its answer may
	 * share one blob (one file per exchange, not two: issue #20); absent in captures stored
	 * before, whose body is the whole blob.
	 */
	offset?: number;
}

export interface MessageAttemptRecord {
	tenantId: string;
	/** Our message id (`msg_…`). */
	messageId: string;
	/** 1, 2, … in the order the attempts started. */
	number: number;
	direction: "inbound" | "outbound";
	startedAt: Date;
	finishedAt: Date | null;
	/** The partner URL POSTed to (outbound). */
	url: string | null;
	httpStatus: number | null;
	bytesSent: number | null;
	bytesReceived: number | null;
	outcome: AttemptOutcome;
	errorCode: string | null;
	errorMessage: string | null;
	/** `TLSv1.3` … when the connection was TLS. */
	tlsVersion: string | null;
	/** Hex SHA-256 of the peer's leaf certificate (DER) when TLS. */
	peerCertificateSha256: string | null;
	phases: AttemptPhases;
	/** The request we sent (outbound) or received (inbound). */
	request: WireCapture | null;
	/** The answer we received (outbound) or sent (inbound). */
	response: WireCapture | null;
	/** The async MDN request we received for this attempt (outbound), or the one we sent for this receipt (inbound). */
	mdn: WireCapture | null;
	/** When the captures are to be removed (the plan's retention); null when there are none. */
	wireExpiresAt: Date | null;
}

export type MessageAttemptPatch = Partial<
	Omit<MessageAttemptRecord, "tenantId" | "messageId" | "number" | "direction" | "startedAt">
>;

export interface MessageAttemptStore {
	/** Throws CONFLICT (`message_attempts.number`) for a second attempt with one number. */
	create(attempt: MessageAttemptRecord): Promise<void>;
	/** The attempts of a message of `tenantId`, by number; another tenant's look missing (empty). */
	list(tenantId: string, messageId: string): Promise<MessageAttemptRecord[]>;
	get(tenantId: string, messageId: string, number: number): Promise<MessageAttemptRecord | null>;
	/** Applies `patch` to one attempt (any tenant: workers hold the message id); null when none. */
	update(messageId: string, number: number, patch: MessageAttemptPatch): Promise<MessageAttemptRecord | null>;
	/** Attempts whose captures expired by `now`, soonest first: the retention cleanup's work. */
	listWireExpired(now: Date, limit: number): Promise<MessageAttemptRecord[]>;
}
