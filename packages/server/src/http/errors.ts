import { As2Error, isAs2Error } from "@as2kit/core";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "./context.ts";
import { setAnswerField } from "./node-response.ts";

/**
 * The one error renderer (style-anchors §4.5): a 422 carries both shapes of the spec, every
 * other error the categorized shape; the status comes from the code registry. Errors that are
 * not As2Errors are logged with the request id and answered as a bare 500, so no driver
 * message or SQL ever reaches a client.
 */
export function renderError(error: unknown, c: Context<AppEnv>): Response {
	const known = toKnownError(error, c);
	const body = {
		message: known.message,
		...(known.status === 422 ? { errors: known.fieldErrors ?? { request: [known.message] } } : {}),
		error: known.toJSON(),
	};
	const retryAfter = known.details?.retry_after_seconds;
	if (typeof retryAfter === "number") {
		c.header("Retry-After", String(retryAfter));
		if (known.type === "rate_limit_error") c.header("X-RateLimit-Retry-After", String(retryAfter));
	}
	if (known.status === 401) c.header("WWW-Authenticate", bearerChallenge(c));
	const limits = known.details?.rate_limit as { limit: number; remaining: number; reset: number } | null | undefined;
	if (limits) setRateLimitHeaders(c, limits);
	return c.json(body, known.status as ContentfulStatusCode);
}

/**
 * A 401 must say how to authenticate (RFC 7235 §3.1): the Bearer scheme of RFC 6750. A request
 * that presented a bearer credential is told it was not accepted (`invalid_token`, §3.1); one
 * without gets the bare challenge, which RFC 6750 §3.1 says carries no error code.
 */
function bearerChallenge(c: Context): string {
	const presented = /^\s*bearer\s+\S/i.test(c.req.header("authorization") ?? "");
	return presented ? 'Bearer realm="as2kit", error="invalid_token"' : 'Bearer realm="as2kit"';
}

export function setRateLimitHeaders(c: Context, limits: { limit: number; remaining: number; reset: number }): void {
	setAnswerField(c, "X-RateLimit-Limit", String(limits.limit));
	setAnswerField(c, "X-RateLimit-Remaining", String(limits.remaining));
	setAnswerField(c, "X-RateLimit-Reset", String(limits.reset));
}

function toKnownError(error: unknown, c: Context<AppEnv>): As2Error {
	if (isAs2Error(error)) {
		if (error.status >= 500) c.get("log")?.error({ err: error }, "request failed");
		return error;
	}
	if (error instanceof HTTPException && error.status < 500) {
		if (error.status === 413) return new As2Error("REQUEST_TOO_LARGE", "the request body is too large");
		return new As2Error(error.status === 404 ? "NOT_FOUND" : "VALIDATION_FAILED", error.message || "bad request");
	}
	c.get("log")?.error({ err: error }, "unexpected error");
	return new As2Error("INTERNAL_ERROR", "internal server error", {
		details: { request_id: c.get("requestId") },
	});
}

export function renderNotFound(c: Context<AppEnv>): Response {
	return renderError(new As2Error("NOT_FOUND", `no route for ${c.req.method} ${c.req.path}`), c);
}
