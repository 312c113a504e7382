/**
 * The one registry of error codes. Keys are wire codes exactly as the interface spec spells
 * them (mixed case included); a shipped code is never renamed, only added to. The HTTP layer
 * reads `type`/`status`; the MDN builder reads `disposition` (RFC 4130 §7.4.3, RFC 3798 §3.2.6).
 */
export type ErrorType =
	| "authentication_error"
	| "authorization_error"
	| "validation_error"
	| "resource_error"
	| "rate_limit_error"
	| "transmission_error"
	| "certificate_error"
	| "billing_error"
	| "partner_error"
	| "server_error";

/** The `processed/error:` modifiers of RFC 4130 §7.4.3 and RFC 3798 §3.2.6.3. */
export type DispositionModifier =
	| "authentication-failed"
	| "decompression-failed"
	| "decryption-failed"
	| "insufficient-message-security"
	| "integrity-check-failed"
	| "unexpected-processing-error"
	| "unknown-trading-partner";

export interface ErrorSpec {
	readonly type: ErrorType;
	readonly status: number;
	readonly disposition?: DispositionModifier;
}

export const ERROR_CODES = {
	// authentication and authorization (spec: Authentication errors; decisions: Accounts)
	invalid_api_key: { type: "authentication_error", status: 401 },
	expired_api_key: { type: "authentication_error", status: 401 },
	invalid_credentials: { type: "authentication_error", status: 401 },
	insufficient_scope: { type: "authorization_error", status: 403 },
	// validation and resources (decisions: Errors)
	VALIDATION_FAILED: { type: "validation_error", status: 422 },
	INVALID_JSON: { type: "validation_error", status: 400 },
	UNSUPPORTED_MEDIA_TYPE: { type: "validation_error", status: 415 },
	NOT_FOUND: { type: "resource_error", status: 404 },
	NOT_ACCEPTABLE: { type: "validation_error", status: 406 },
	REQUEST_TOO_LARGE: { type: "validation_error", status: 413 },
	/** A unique constraint held (storage port); the service turns it into its own 422. */
	CONFLICT: { type: "validation_error", status: 409 },
	/** A request with the same Idempotency-Key is still running after the wait. */
	IDEMPOTENCY_IN_PROGRESS: { type: "validation_error", status: 409 },
	/** A message action (retry, cancel, resend) that its status does not allow. */
	INVALID_MESSAGE_STATE: { type: "validation_error", status: 409 },
	SERVICE_UNAVAILABLE: { type: "server_error", status: 503 },
	// messages (spec: Message errors)
	PARTNER_NOT_FOUND: { type: "resource_error", status: 404 },
	/** The error_code of a message cancelled before it was sent (POST /v1/messages/{id}/cancel). */
	CANCELLED: { type: "transmission_error", status: 409 },
	PARTNER_INACTIVE: { type: "transmission_error", status: 400 },
	PAYLOAD_TOO_LARGE: { type: "validation_error", status: 413 },
	INVALID_CONTENT_TYPE: { type: "validation_error", status: 400 },
	ENCRYPTION_FAILED: { type: "certificate_error", status: 400 },
	SIGNING_FAILED: { type: "certificate_error", status: 400 },
	PARTNER_UNREACHABLE: { type: "transmission_error", status: 400 },
	/** The partner answered, but refused the message (an HTTP 4xx, or a negative MDN without a modifier we know). */
	PARTNER_REJECTED: { type: "transmission_error", status: 400 },
	INVALID_AS2_HEADERS: { type: "transmission_error", status: 400, disposition: "unexpected-processing-error" },
	MDN_TIMEOUT: { type: "transmission_error", status: 408 },
	CERTIFICATE_EXPIRED: { type: "certificate_error", status: 400, disposition: "authentication-failed" },
	// partners (spec: Partner errors)
	DUPLICATE_AS2_ID: { type: "validation_error", status: 422 },
	INVALID_AS2_ID_FORMAT: { type: "validation_error", status: 422 },
	INVALID_ENDPOINT_URL: { type: "validation_error", status: 422 },
	PARTNER_LIMIT_EXCEEDED: { type: "billing_error", status: 402 },
	CERTIFICATE_LIMIT_EXCEEDED: { type: "billing_error", status: 402 },
	UNSUPPORTED_ALGORITHM: { type: "validation_error", status: 422, disposition: "unexpected-processing-error" },
	CERTIFICATE_REQUIRED: { type: "certificate_error", status: 400 },
	PARTNER_CERTIFICATE_EXPIRED: { type: "partner_error", status: 400 },
	INVALID_CERTIFICATE: { type: "validation_error", status: 422 },
	// usage and rate limits (decisions: Rate limits, Usage)
	rate_limit_exceeded: { type: "rate_limit_error", status: 429 },
	concurrency_limit_exceeded: { type: "rate_limit_error", status: 429 },
	MESSAGE_LIMIT_EXCEEDED: { type: "billing_error", status: 402 },
	// inbound AS2 processing: each carries its MDN modifier (RFC 4130 §7.4.3)
	DECRYPTION_FAILED: { type: "transmission_error", status: 400, disposition: "decryption-failed" },
	AUTHENTICATION_FAILED: { type: "transmission_error", status: 400, disposition: "authentication-failed" },
	INTEGRITY_CHECK_FAILED: { type: "transmission_error", status: 400, disposition: "integrity-check-failed" },
	DECOMPRESSION_FAILED: { type: "transmission_error", status: 400, disposition: "decompression-failed" },
	INSUFFICIENT_MESSAGE_SECURITY: {
		type: "transmission_error",
		status: 400,
		disposition: "insufficient-message-security",
	},
	UNKNOWN_TRADING_PARTNER: { type: "transmission_error", status: 400, disposition: "unknown-trading-partner" },
	MALFORMED_MIME: { type: "transmission_error", status: 400, disposition: "unexpected-processing-error" },
	MALFORMED_CMS: { type: "transmission_error", status: 400, disposition: "unexpected-processing-error" },
	MESSAGE_TOO_LARGE: { type: "transmission_error", status: 413, disposition: "unexpected-processing-error" },
	INVALID_MDN: { type: "transmission_error", status: 400 },
	MIC_MISMATCH: { type: "transmission_error", status: 400 },
	INVALID_KEY: { type: "certificate_error", status: 400 },
	INTERNAL_ERROR: { type: "server_error", status: 500, disposition: "unexpected-processing-error" },
	// EPCIS documents (issue #7): not well-formed, hostile or over a limit; unknown validation rule
	EPCIS_PARSE_ERROR: { type: "validation_error", status: 422 },
	EPCIS_UNKNOWN_RULE: { type: "validation_error", status: 422 },
	// EPCIS queries: the standard's QueryParameterException, QueryTooLargeException and NoSuchNameException
	EPCIS_QUERY_PARAMETER_INVALID: { type: "validation_error", status: 422 },
	EPCIS_QUERY_TOO_LARGE: { type: "validation_error", status: 422 },
	EPCIS_NO_SUCH_QUERY: { type: "validation_error", status: 422 },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;
