import type { Service } from "../service/create-service.ts";
import type { Logger } from "../service/deps.ts";
import type { Principal } from "../service/principal.ts";

/** The typed `c.var` of every handler. */
export interface AppEnv {
	Variables: {
		service: Service;
		log: Logger;
		requestId: string;
		/** Set by the authenticate middleware on authenticated routes. */
		principal: Principal;
	};
}
