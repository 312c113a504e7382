/**
 * Issue #20: the built server remembers an API key's authentication for a second, yet a key
 * revoked on it is refused from the next request on, by every client, however busy the key was
 * when it was revoked; and keys nobody issued never displace or stand in for a real one
 * (README, Authentication).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, createKey, curl, type Registered, rawRequest, register } from "./clients.ts";

let server: BuiltServer;
let owner: Registered;
beforeAll(async () => {
	// X-Forwarded-For trusted: each refused guess below names its own address, so the limit on
	// failed authentication per address stays out of the way.
	server = await startBuiltServer({ env: { AS2_DEFAULT_PLAN: "enterprise", AS2_TRUST_PROXY: "1" } });
	owner = await register(server.base);
});
afterAll(() => server.stop());

const newKey = () => createKey(server.base, owner.token, { scope: "account", environment: "test", permissions: ["*"] });
const keyIdOf = async (key: string) =>
	(await call(server.base, "GET", "/v1/api-keys", { token: owner.token })).json.data.find(
		(listed: { key_last4: string }) => key.endsWith(listed.key_last4),
	).id as string;

function rawGet(key: string, address = "203.0.113.9") {
	return rawRequest(
		server.port,
		`GET /v1/partners HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nX-Forwarded-For: ${address}\r\nConnection: close\r\n\r\n`,
	);
}

async function curlStatus(key: string, address = "203.0.113.10"): Promise<number> {
	const { stdout, code } = await curl([
		`${server.base}/v1/partners`,
		"-H",
		`Authorization: Bearer ${key}`,
		"-H",
		`X-Forwarded-For: ${address}`,
		"-o",
		"/dev/null",
		"-w",
		"%{http_code}",
	]);
	expect(code).toBe(0);
	return Number(stdout);
}

describe("a remembered key on the built server", () => {
	it("is refused by fetch, curl and a raw socket from the request after its revocation", async () => {
		const key = await newKey();
		for (let i = 0; i < 3; i++)
			expect((await call(server.base, "GET", "/v1/partners", { token: key })).status).toBe(200);
		expect(await curlStatus(key)).toBe(200);
		expect((await rawGet(key)).status).toBe(200);

		const revoked = await call(server.base, "DELETE", `/v1/api-keys/${await keyIdOf(key)}`, { token: owner.token });
		expect(revoked.status).toBe(200);

		const refused = await call(server.base, "GET", "/v1/partners", {
			token: key,
			headers: { "x-forwarded-for": "192.0.2.1" },
		});
		expect(refused.status).toBe(401);
		expect(refused.json.error.code).toBe("invalid_api_key");
		expect(await curlStatus(key)).toBe(401);
		expect((await rawGet(key)).status).toBe(401);
	});

	it("is refused after its revocation though requests with it were in flight while it was revoked", async () => {
		const key = await newKey();
		const id = await keyIdOf(key);
		const during = Array.from({ length: 20 }, (_, i) =>
			call(server.base, "GET", "/v1/partners", { token: key, headers: { "x-forwarded-for": `198.51.100.${100 + i}` } }),
		);
		const revoked = await call(server.base, "DELETE", `/v1/api-keys/${id}`, { token: owner.token });
		expect(revoked.status).toBe(200);
		// Those sent before the revocation may have been answered either way; never with an error.
		for (const answer of await Promise.all(during)) expect([200, 401]).toContain(answer.status);
		// Each from an address of its own: refusals count against the client's address.
		const after = await Promise.all(
			Array.from({ length: 20 }, (_, i) =>
				call(server.base, "GET", "/v1/partners", { token: key, headers: { "x-forwarded-for": `198.51.100.${i}` } }),
			),
		);
		expect(after.map((answer) => answer.status)).toEqual(Array(20).fill(401));
	});

	it("keeps working beside keys nobody issued, and a near miss of it is refused", async () => {
		const key = await newKey();
		expect((await rawGet(key)).status).toBe(200);
		const guesses = [
			...Array.from({ length: 8 }, (_, i) => `pk_test_${"A".repeat(39)}${i}`),
			`${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`,
			`${key}0`,
			key.toUpperCase(),
		];
		for (const [i, guess] of guesses.entries()) {
			const answer = await rawGet(guess, `203.0.113.${20 + i}`);
			expect(answer.status, guess).toBe(401);
		}
		expect((await rawGet(key)).status).toBe(200);
		expect(await curlStatus(key)).toBe(200);
	});
});
