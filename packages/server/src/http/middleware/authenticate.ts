import { As2Error, isAs2Error } from "@as2kit/core";
import type { Context, MiddlewareHandler } from "hono";
import { bearerCredential } from "../bearer.ts";
import type { AppEnv } from "../context.ts";
import { setRateLimitHeaders } from "../errors.ts";

export interface AuthenticateOptions {
	/** Count the request against the account's rate limits and report them in headers. */
	rateLimit: boolean;
	/** The client address, for limiting requests that carry no valid credential. */
	clientIp: (c: Context) => string;
}

/**
 * `Authorization: Bearer <API key or session token>` and `X-Tenant-ID` → `c.get("principal")`.
 * Then the account's rate limits (decisions.md): a 429 carries Retry-After, and every
 * response the X-RateLimit-* headers. Requests without a valid credential are limited by
 * client address on the Free plan's budget, so guessing keys is slow.
 */
export function authenticate(options: AuthenticateOptions): MiddlewareHandler<AppEnv> {
	return async (c, next) => {
		const service = c.get("service");
		const header = c.req.header("authorization") ?? "";
		const credential = bearerCredential(header);
		let principal: AppEnv["Variables"]["principal"];
		try {
			if (!credential) throw new As2Error("invalid_api_key", "send Authorization: Bearer <API key>");
			principal = await service.authenticate(credential, c.req.header("x-tenant-id") ?? null);
		} catch (error) {
			if (isAs2Error(error) && options.rateLimit) {
				// Every refusal counts and carries X-RateLimit-*: a valid key refused an X-Tenant-ID
				// (403, 404) against its account, anything else against the client's address.
				const valid =
					error.type === "authentication_error"
						? null
						: await service.authenticate(credential!, null).catch(() => null);
				const admission = valid
					? await service.admit(`account:${valid.accountId}`, valid.plan)
					: await service.admit(`ip:${options.clientIp(c)}`, "free");
				await admission.release();
				if (admission.headers) setRateLimitHeaders(c, admission.headers);
			}
			throw error;
		}
		c.set("principal", principal);
		if (!options.rateLimit) return next();
		const admission = await service.admit(`account:${principal.accountId}`, principal.plan);
		if (admission.headers) setRateLimitHeaders(c, admission.headers);
		try {
			await next();
		} finally {
			await admission.release();
		}
	};
}
