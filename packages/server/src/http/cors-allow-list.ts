import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";

/**
 * CORS for the exact origins of `AS2_CORS_ORIGINS` (a console deployed as static files on
 * another origin, issue #19): a request from one of them gets the CORS headers, a preflight
 * from one of them is answered here (before authentication, which a preflight never carries).
 * Any other origin gets no CORS header at all, so its browser keeps the answer from it.
 */
export function corsAllowList(origins: readonly string[]): MiddlewareHandler {
	const allowed = new Set(origins);
	const handler = cors({
		origin: (origin) => (allowed.has(origin) ? origin : null),
		allowHeaders: ["Authorization", "Content-Type", "Accept", "X-Tenant-ID", "Idempotency-Key"],
		exposeHeaders: [
			"Content-Disposition",
			"Retry-After",
			"X-RateLimit-Limit",
			"X-RateLimit-Remaining",
			"X-RateLimit-Reset",
			"X-Request-Id",
		],
		maxAge: 600,
	});
	return async (c, next) => {
		const origin = c.req.header("Origin");
		if (origin && allowed.has(origin)) return handler(c, next);
		await next();
	};
}
