import { randomUUID } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { Service } from "../../service/create-service.ts";
import type { Logger } from "../../service/deps.ts";
import type { AppEnv } from "../context.ts";
import type { HttpMetrics } from "../metrics.ts";
import { nodeResponseOf } from "../node-response.ts";

const SAFE_REQUEST_ID = /^[\w.:-]{1,100}$/;

/**
 * First on every request: a request id (the caller's X-Request-Id when sane, else a new
 * one) echoed back and bound to every log line, one access log line, and the metrics.
 */
export function requestContext(service: Service, logger: Logger, metrics: HttpMetrics): MiddlewareHandler<AppEnv> {
	return async (c, next) => {
		const started = performance.now();
		const given = c.req.header("x-request-id");
		const requestId = given && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
		const log = logger.child({ requestId });
		c.set("service", service);
		c.set("requestId", requestId);
		c.set("log", log);
		const echoedOnSocket = echoOnNodeResponse(c, requestId);
		await next();
		if (!echoedOnSocket) echoRequestId(c, requestId);
		const seconds = (performance.now() - started) / 1000;
		const route = routePath(c, -1) || "unmatched";
		metrics.observe(c.req.method, route, c.res.status, seconds);
		log.info(
			{ method: c.req.method, path: c.req.path, route, status: c.res.status, ms: Math.round(seconds * 1000) },
			"request",
		);
	};
}

/** X-Request-Id on Node's response before the app answers (node-response.ts: no web `Headers` per answer). */
function echoOnNodeResponse(c: Context, requestId: string): boolean {
	const outgoing = nodeResponseOf(c);
	if (!outgoing) return false;
	outgoing.setHeader("X-Request-Id", requestId);
	return true;
}

/**
 * X-Request-Id on the response already made, where there is no Node response (`app.request`, other runtimes). hono's `c.header` would copy that response first
 * (it may have immutable headers): on @hono/node-server that builds a web Response and a
 * ReadableStream of its body for every request, about 3% of the CPU of a small request. The
 * responses of this app take the header in place; one that refuses falls back to the copy.
 */
function echoRequestId(c: Context, requestId: string): void {
	try {
		c.res.headers.set("X-Request-Id", requestId);
	} catch {
		c.header("X-Request-Id", requestId);
	}
}
