import type { Service } from "../service/create-service.ts";
import type { Logger } from "../service/deps.ts";
import type { Principal } from "../service/principal.ts";

/**
 * The typed variables of every handler, read with `c.get(name)`: Hono's `c.var` copies all of
 * them into a new object on every read (`Object.fromEntries` of its map), and the submit path
 * read it four times a request (issue #20, "The API layer (stop 31)").
 *
 * On promises: a middleware that only checks and then calls `next()` is a plain function that
 * returns `next()`'s promise. Written `async` with `await next()`, it makes two promises more
 * per request (its own and the await's), each with the promise hook storage-sqlite's
 * AsyncLocalStorage installs on Node 20 (about 0.06 us apiece, "The platform's floor").
 */
export interface AppEnv {
	Variables: {
		service: Service;
		log: Logger;
		requestId: string;
		/** Set by the authenticate middleware on authenticated routes. */
		principal: Principal;
	};
}
