import { As2Error, type ErrorCode } from "@as2kit/core";

/**
 * A 422 naming the fields at fault; `code` is the spec's specific code where it has one
 * (decisions.md, Errors), VALIDATION_FAILED otherwise.
 */
export function fieldError(field: string, message: string, code: ErrorCode = "VALIDATION_FAILED"): As2Error {
	return new As2Error(code, `${field} ${message}`, { fieldErrors: { [field]: [message] } });
}

export function notFound(what: string): As2Error {
	return new As2Error("NOT_FOUND", `${what} not found`);
}

/** Whether `error` is the storage port's unique violation on `target` (e.g. `users.email`). */
export function isConflictOn(error: unknown, target: string): boolean {
	const e = error as { code?: unknown; details?: { target?: unknown } };
	return e?.code === "CONFLICT" && typeof e.details?.target === "string" && e.details.target.includes(target);
}
