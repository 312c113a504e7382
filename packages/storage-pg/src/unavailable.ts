import { As2Error } from "@as2kit/core";
import { causeChain } from "./cause-chain.ts";

/**
 * SQLSTATEs of a database that cannot serve now, whatever the statement: class 08 (connection
 * exception), 57P01–57P03 (the server shutting down, crashed, or still starting: a restart or a
 * failover), 53300 (too many connections).
 */
const UNAVAILABLE_STATE = /^(08...|57P0[123]|53300)$/;

/** Node's codes of a connection that could not be made or was cut (no SQLSTATE: no answer came). */
const UNREACHABLE = new Set([
	"ECONNREFUSED",
	"ECONNRESET",
	"EPIPE",
	"ETIMEDOUT",
	"EHOSTUNREACH",
	"ENETUNREACH",
	"ENOTFOUND",
	"EAI_AGAIN",
]);

/**
 * node-postgres' and pg-pool's own errors of a connection lost or never made, which carry
 * neither a SQLSTATE nor a code (pg/lib/client.js, pg-pool/index.js, 8.x).
 */
const LOST =
	/^(Connection terminated|Client was closed and is not queryable|Client has encountered a connection error|timeout exceeded when trying to connect)/;

/**
 * A failure of the database's availability, rather than of the statement, as our error: 503
 * SERVICE_UNAVAILABLE, so a client tries again later (a restart or a failover of PostgreSQL
 * cuts every connection, and the pool and the shared connection open new ones for the next
 * statements), and `transient`, so background work is retried on its schedule. Its cause names
 * what PostgreSQL or the socket said, without the statement's text and parameters that drizzle
 * puts in its error's message (a session's token hash, a payload's fields): the log line of the
 * failure shows the cause. Null for any other failure.
 */
export function unavailable(error: unknown): As2Error | null {
	for (const e of causeChain(error)) {
		const said = typeof e.message === "string" ? e.message : "";
		const code = typeof e.code === "string" ? e.code : "";
		if (UNAVAILABLE_STATE.test(code) || UNREACHABLE.has(code) || (code === "" && LOST.test(said))) {
			return new As2Error("SERVICE_UNAVAILABLE", "the database is unavailable; try again later", {
				cause: new Error(`PostgreSQL unavailable${code ? ` (${code})` : ""}: ${said}`),
				details: { transient: true },
			});
		}
	}
	return null;
}
