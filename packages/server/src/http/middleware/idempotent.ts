import { createHash } from "node:crypto";
import type { Context, MiddlewareHandler, Next } from "hono";
import { mediaType } from "../body.ts";
import type { AppEnv } from "../context.ts";

/**
 * Idempotency-Key for the operations the spec lists (interface spec, Idempotency), per
 * tenant. The request is identified by method, path and body; a multipart upload, which is
 * streamed rather than buffered, by method, path and Content-Length.
 */
export function idempotent(): MiddlewareHandler<AppEnv> {
	// Without a key (most requests), not async: `next()`'s own promise is handed on (context.ts, on promises).
	return (c, next) => {
		const key = c.req.header("idempotency-key");
		return key === undefined ? next() : withKey(c, next, key);
	};
}

async function withKey(c: Context<AppEnv>, next: Next, key: string): Promise<Response | undefined> {
	const fingerprint = createHash("sha256").update(c.req.method).update("\0").update(c.req.path).update("\0");
	if (mediaType(c.req.header("content-type")) === "multipart/form-data") {
		fingerprint.update(`multipart:${c.req.header("content-length") ?? "chunked"}`);
	} else {
		fingerprint.update(new Uint8Array(await c.req.raw.clone().arrayBuffer()));
	}
	const decision = await c.get("service").beginIdempotent(c.get("principal").tenantId, key, fingerprint.digest("hex"));
	if (decision.kind === "replay") {
		c.header("Idempotent-Replayed", "true");
		return c.body(decision.body, decision.status as 200, { "content-type": "application/json" });
	}
	try {
		await next();
	} catch (error) {
		await decision.abandon();
		throw error;
	}
	await decision.finish({ status: c.res.status, body: await c.res.clone().text() });
	return undefined;
}
