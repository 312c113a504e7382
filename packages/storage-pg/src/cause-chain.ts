/** What this package reads of a failure: the driver's fields, and the error it wraps. */
export interface Failure {
	message?: unknown;
	code?: unknown;
	cause?: unknown;
}

/**
 * `error` and the errors under it through `cause`, at most four deep: drizzle wraps the driver's
 * error (DrizzleQueryError), and a failure may be wrapped again on its way up.
 */
export function* causeChain(error: unknown): Generator<Failure> {
	for (let e = error as Failure | undefined, depth = 0; e && depth < 4; depth++) {
		yield e;
		e = e.cause as Failure | undefined;
	}
}
