import type { MessageRecord } from "@as2kit/core/store";

/** How one transmission attempt of an outbound message ended (send.ts). */
export type AttemptOutcome = "sent" | "rejected" | "retry" | "failed";

/**
 * Why `/as2/receive` did not process a message (receive.ts, process-inbound.ts): malformed
 * (400), unknown_partner (404, or a negative MDN: no tenant, partner or, for an MDN, message
 * matches), too_large (413), rate_limited (429), busy (503), processing_error (the message was
 * read and refused: a negative MDN, by error code), other (any other 4xx/5xx).
 */
export type InboundRefusal =
	| "malformed"
	| "unknown_partner"
	| "too_large"
	| "rate_limited"
	| "busy"
	| "processing_error"
	| "other";

/**
 * What the engine reports for an operator's metrics (issue #18, Metrics). A port: the engine
 * calls it after the facts are committed, the host decides where the numbers go (the Node
 * server's `/metrics`, http/service-metrics.ts). Every method is cheap and never throws.
 */
export interface Telemetry {
	/** A message reached its final status (delivered, failed, received; sent when no MDN was asked). */
	messageSettled(message: MessageRecord): void;
	/** One HTTP transmission to a partner ended; `httpStatus` null when no answer came. */
	transmissionAttempt(attempt: {
		outcome: AttemptOutcome;
		errorCode: string | null;
		httpStatus: number | null;
		durationMs: number;
	}): void;
	/** A partner's MDN settled a message this long after it was sent. */
	mdnReceived(via: "sync" | "async", waitSeconds: number): void;
	/** An inbound AS2 request was not processed; `errorCode` for processing errors. */
	inboundRefused(reason: InboundRefusal, errorCode?: string): void;
	/** One webhook delivery attempt ended; `lagSeconds` from the event to the end of the attempt. */
	webhookDelivery(outcome: "succeeded" | "retry" | "failed", lagSeconds: number): void;
	/** An EPCIS document was validated. */
	epcisValidation(outcome: "valid" | "invalid"): void;
}

export const NO_TELEMETRY: Telemetry = {
	messageSettled() {},
	transmissionAttempt() {},
	mdnReceived() {},
	inboundRefused() {},
	webhookDelivery() {},
	epcisValidation() {},
};
