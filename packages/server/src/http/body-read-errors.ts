import { As2Error, isAs2Error } from "@as2kit/core";

/**
 * A request body that could not be read is the client's fault, never the server's: a 422
 * naming `request`, so an aborted upload or a broken form shows as a client error in the
 * access log and the metrics, not as a 500 with a stack trace.
 */
export function unreadableBody(error: unknown): never {
	if (isAs2Error(error)) throw error;
	// undici's Request.formData() throws a TypeError for a body that is not a form.
	if (error instanceof TypeError) throw malformedForm(error.message, error);
	throw cutOff(error);
}

/** The client closed or reset the connection before the body was complete. */
export function cutOff(cause: unknown): As2Error {
	const problem = "was cut off: the connection closed before the body was complete";
	return new As2Error("VALIDATION_FAILED", `request ${problem}`, { fieldErrors: { request: [problem] }, cause });
}

/** A multipart/form-data body that does not parse (MALFORMED_MIME is for what partners send over AS2). */
export function malformedForm(detail: string, cause: unknown): As2Error {
	const problem = `is not a well-formed multipart/form-data body: ${detail}`;
	return new As2Error("VALIDATION_FAILED", `request ${problem}`, { fieldErrors: { request: [problem] }, cause });
}
