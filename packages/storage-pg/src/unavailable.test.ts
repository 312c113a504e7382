/**
 * Which failures are the database's availability (503, transient) rather than the statement's:
 * what PostgreSQL, node-postgres, pg-pool and Node say when a connection is cut or refused.
 */
import { isAs2Error } from "@as2kit/core";
import { describe, expect, it } from "vitest";
import { unavailable } from "./unavailable.ts";

/** drizzle's wrapper: the statement and its parameters in the message, the driver's error as cause. */
const failedQuery = (cause: unknown) =>
	Object.assign(new Error("Failed query: select * from sessions where token_hash = $1\nparams: 5e2a…"), { cause });
const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("unavailable", () => {
	it.each([
		[
			"a restart's termination (57P01), under drizzle",
			failedQuery(withCode("terminating connection due to administrator command", "57P01")),
		],
		["a crash's (57P02)", withCode("terminating connection because of crash of another server process", "57P02")],
		["a server still starting (57P03)", withCode("the database system is starting up", "57P03")],
		["too many connections (53300)", withCode("sorry, too many clients already", "53300")],
		["a connection exception (08006)", withCode("connection failure", "08006")],
		["node-postgres' cut connection", new Error("Connection terminated unexpectedly")],
		["node-postgres' closed client", new Error("Client was closed and is not queryable")],
		["pg-pool's connect timeout", new Error("timeout exceeded when trying to connect")],
		["a refused socket", withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED")],
		["a reset socket, under drizzle", failedQuery(withCode("read ECONNRESET", "ECONNRESET"))],
	])("takes %s as SERVICE_UNAVAILABLE, transient, its cause without the statement", (_, error) => {
		const mapped = unavailable(error);
		expect(isAs2Error(mapped)).toBe(true);
		expect(mapped).toMatchObject({ code: "SERVICE_UNAVAILABLE", details: { transient: true } });
		const cause = (mapped as Error).cause as Error;
		expect(cause.message).toMatch(/^PostgreSQL unavailable/);
		expect(cause.message).not.toMatch(/select|params|token_hash/);
	});

	it.each([
		["a unique violation (23505)", failedQuery(withCode("duplicate key value violates unique constraint", "23505"))],
		["a statement timeout (57014)", withCode("canceling statement due to statement timeout", "57014")],
		["a division by zero (22012)", withCode("division by zero", "22012")],
		["an aborted transaction (25P02)", withCode("current transaction is aborted", "25P02")],
		[
			"a plain error naming a connection in its text, with a SQLSTATE",
			withCode("Connection terminated by a trigger", "P0001"),
		],
		["a programming error", new TypeError("Cannot read properties of undefined")],
		["no error at all", undefined],
	])("leaves %s as it is", (_, error) => {
		expect(unavailable(error)).toBeNull();
	});
});
