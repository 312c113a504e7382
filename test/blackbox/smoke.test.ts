import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, register } from "./clients.ts";

describe("the built server over real sockets", () => {
	let server: BuiltServer;
	beforeAll(async () => {
		server = await startBuiltServer();
	});
	afterAll(() => server.stop());

	it("answers /health and registers a user with fetch", async () => {
		expect((await call(server.base, "GET", "/health")).json).toEqual({ status: "ok" });
		const user = await register(server.base);
		expect(user.token).toMatch(/^sess_/);
	});
});
