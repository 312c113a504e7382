import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/test-app.ts";

/**
 * CORS is opt-in (AS2_CORS_ORIGINS, issue #19): an app created without `corsOrigins` gives no
 * browser origin any CORS header, and a preflight is not answered as one.
 */
let t: TestApp;
beforeAll(() => {
	t = createTestApp();
});
afterAll(() => t.close());

describe("CORS without AS2_CORS_ORIGINS", () => {
	it("sends no CORS header to any origin, on a preflight or a request", async () => {
		const origin = "https://console.example.com";
		const preflight = await t.call("OPTIONS", "/v1/messages", {
			headers: { origin, "access-control-request-method": "POST" },
		});
		const request = await t.call("GET", "/auth/me", { headers: { origin } });
		const console = await t.call("GET", "/console/", { headers: { origin } });
		for (const response of [preflight, request, console]) {
			expect([...response.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
		}
		expect(preflight.status).not.toBe(204);
	});
});
