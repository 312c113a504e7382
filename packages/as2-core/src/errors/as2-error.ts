import { type DispositionModifier, ERROR_CODES, type ErrorCode, type ErrorType } from "./error-codes.ts";

const BRAND = Symbol.for("@as2kit/core:As2Error");

export interface As2ErrorOptions {
	details?: Record<string, unknown>;
	fieldErrors?: Record<string, string[]>;
	cause?: unknown;
}

/**
 * The one error class of as2kit. Recognise it with {@link isAs2Error}, not `instanceof`,
 * so that two copies of the package still agree.
 *
 * @example
 * throw new As2Error("DECRYPTION_FAILED", "no recipient matches our certificate");
 */
export class As2Error extends Error {
	readonly [BRAND] = true;
	readonly code: ErrorCode;
	readonly type: ErrorType;
	readonly status: number;
	readonly disposition: DispositionModifier | undefined;
	readonly details: Record<string, unknown> | undefined;
	readonly fieldErrors: Record<string, string[]> | undefined;

	constructor(code: ErrorCode, message?: string, options: As2ErrorOptions = {}) {
		super(message ?? code, options.cause === undefined ? undefined : { cause: options.cause });
		const spec = ERROR_CODES[code];
		this.name = "As2Error";
		this.code = code;
		this.type = spec.type;
		this.status = spec.status;
		this.disposition = "disposition" in spec ? spec.disposition : undefined;
		this.details = options.details;
		this.fieldErrors = options.fieldErrors;
	}

	toJSON(): { type: ErrorType; code: ErrorCode; message: string; details?: Record<string, unknown> } {
		return {
			type: this.type,
			code: this.code,
			message: this.message,
			...(this.details ? { details: this.details } : {}),
		};
	}
}

export function isAs2Error(error: unknown): error is As2Error {
	return typeof error === "object" && error !== null && BRAND in error;
}

/**
 * Wraps a foreign error as `code`, keeping it as the cause; an As2Error passes through.
 */
export function toAs2Error(error: unknown, code: ErrorCode, message?: string): As2Error {
	if (isAs2Error(error)) return error;
	const text = error instanceof Error ? error.message : String(error);
	return new As2Error(code, message ? `${message}: ${text}` : text, { cause: error });
}

/** The MDN modifier for a failure: its registry entry's, or unexpected-processing-error. */
export function toDisposition(error: unknown): DispositionModifier {
	return (isAs2Error(error) && error.disposition) || "unexpected-processing-error";
}
