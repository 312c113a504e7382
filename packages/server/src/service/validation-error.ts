import { As2Error, type ErrorCode, isAs2Error } from "@as2kit/core";

/**
 * A 422 naming the fields at fault; `code` is the spec's specific code where it has one
 * (decisions.md, Errors), VALIDATION_FAILED otherwise.
 */
export function fieldError(field: string, message: string, code: ErrorCode = "VALIDATION_FAILED"): As2Error {
	return new As2Error(code, `${field} ${message}`, { fieldErrors: { [field]: [message] } });
}

/** A 422 that names fields, as `fieldError` makes them and the HTTP layer's schema checks do. */
export function isFieldError(error: unknown): error is As2Error & { fieldErrors: Record<string, string[]> } {
	return isAs2Error(error) && error.status === 422 && error.fieldErrors !== undefined;
}

/**
 * One 422 naming every field of `errors`: their field errors merged, the message of each in
 * turn, and the first specific code (INVALID_ENDPOINT_URL, …) where one has it, else
 * VALIDATION_FAILED (decisions.md, Errors).
 */
export function mergeFieldErrors(errors: readonly As2Error[]): As2Error {
	if (errors.length === 1) return errors[0]!;
	const fieldErrors: Record<string, string[]> = {};
	for (const error of errors) {
		for (const [field, messages] of Object.entries(error.fieldErrors ?? {})) {
			fieldErrors[field] = [...(fieldErrors[field] ?? []), ...messages];
		}
	}
	const code = errors.find((error) => error.code !== "VALIDATION_FAILED")?.code ?? "VALIDATION_FAILED";
	return new As2Error(code, errors.map((error) => error.message).join("; "), { fieldErrors });
}

/**
 * Runs every check of an input and reports all failing fields at once, rather than the first
 * (issue #16, defect 9): `check` returns the value, or undefined when its field failed; a
 * failure that is not a field error ends the run at once.
 *
 * @example
 * const fields = new FieldChecks();
 * const url = fields.check(() => checkEndpointUrl(input.url, allowHttp));
 * const events = fields.check(() => checkEvents(input.events));
 * fields.throwIfAny(); // 422 naming url and events when both are wrong
 */
export class FieldChecks {
	readonly #errors: As2Error[] = [];

	check<T>(run: () => T): T | undefined {
		try {
			return run();
		} catch (error) {
			if (!isFieldError(error)) throw error;
			this.#errors.push(error);
			return undefined;
		}
	}

	/** Adds a failure found elsewhere (e.g. by the HTTP layer's schema). */
	add(error: As2Error): void {
		this.#errors.push(error);
	}

	throwIfAny(): void {
		if (this.#errors.length > 0) throw mergeFieldErrors(this.#errors);
	}
}

export function notFound(what: string): As2Error {
	return new As2Error("NOT_FOUND", `${what} not found`);
}

/** Whether `error` is the storage port's unique violation on `target` (e.g. `users.email`). */
export function isConflictOn(error: unknown, target: string): boolean {
	const e = error as { code?: unknown; details?: { target?: unknown } };
	return e?.code === "CONFLICT" && typeof e.details?.target === "string" && e.details.target.includes(target);
}
