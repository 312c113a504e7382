/**
 * Issue #18 §1, "Error texts in the user's words": the answers a new user meets in the first
 * hour say what to do, in the words of the API, not of the validator or the BER reader.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, curl, type Registered, rawRequest, register } from "./clients.ts";

describe("error texts in the user's words (built server)", () => {
	let server: BuiltServer;
	let owner: Registered;
	const files = mkdtempSync(join(tmpdir(), "as2kit-first-hour-errors-"));
	beforeAll(async () => {
		server = await startBuiltServer();
		owner = await register(server.base);
	});
	afterAll(async () => {
		rmSync(files, { recursive: true, force: true });
		await server.stop();
	});

	it("per_page over 100 says it must be at most 100", async () => {
		const answer = await call(server.base, "GET", "/v1/partners?per_page=500", { token: owner.token });
		expect(answer.status).toBe(422);
		expect(answer.json.errors).toEqual({ per_page: ["must be at most 100"] });
		expect(answer.json.error.message).toBe("per_page must be at most 100");
		const zero = await call(server.base, "GET", "/v1/partners?per_page=0", { token: owner.token });
		expect(zero.json.errors).toEqual({ per_page: ["must be at least 1"] });
	});

	it("a certificate that is neither PEM nor DER says so (curl -F certificate=@file)", async () => {
		const partner = await call(server.base, "POST", "/v1/partners", {
			token: owner.token,
			body: { name: "Acme Supply", as2_id: "ACME", url: "https://as2.acme.example/receive" },
		});
		expect(partner.status).toBe(201);
		const notACertificate = join(files, "acme.pem");
		writeFileSync(notACertificate, "hello, this is not a certificate\n");
		const { stdout } = await curl([
			`${server.base}/v1/partners/${partner.json.data.id}/certificates`,
			"-H",
			`Authorization: Bearer ${owner.token}`,
			"-F",
			"name=Acme 2026",
			"-F",
			"usage=both",
			"-F",
			`certificate=@${notACertificate}`,
		]);
		const answer = JSON.parse(stdout);
		expect(answer.error.code).toBe("INVALID_CERTIFICATE");
		expect(answer.errors.certificate[0]).toMatch(/neither a PEM certificate .* nor a DER one/);
		expect(answer.error.message).not.toMatch(/BER|runs past/);
	});

	it("a JSON body sent without its Content-Type is 415 naming application/json", async () => {
		// `curl -d` labels the body application/x-www-form-urlencoded.
		const { stdout } = await curl([
			`${server.base}/v1/partners`,
			"-w",
			"\n%{http_code}",
			"-H",
			`Authorization: Bearer ${owner.token}`,
			"-d",
			'{"name":"Acme Supply","as2_id":"ACME2","url":"https://as2.acme.example/receive"}',
		]);
		const [body, status] = stdout.split("\n");
		expect(status).toBe("415");
		const answer = JSON.parse(body!);
		expect(answer.error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
		expect(answer.error.message).toContain("Content-Type: application/json");
		expect(answer.error.message).not.toContain("required");
		// No Content-Type at all, from a raw socket.
		const json = '{"name":"x"}';
		const raw = await rawRequest(
			server.port,
			`POST /v1/tenants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${owner.token}\r\nContent-Length: ${json.length}\r\nConnection: close\r\n\r\n${json}`,
		);
		expect(raw.status).toBe(415);
		expect(raw.raw).toContain("application/json");
	});

	it("a 401 names the scheme to use in WWW-Authenticate (RFC 7235 §3.1, RFC 6750 §3): curl, a raw socket", async () => {
		// No credential: the challenge alone, no error code (RFC 6750 §3.1).
		const { stdout } = await curl([`${server.base}/v1/tenants`, "-D", "-", "-o", "/dev/null"]);
		expect(stdout).toMatch(/^HTTP\/1\.1 401/);
		expect(stdout).toMatch(/^www-authenticate: Bearer realm="as2kit"\r$/im);
		// A wrong key and a wrong session token: the challenge says the token is invalid.
		const wrong = await rawRequest(
			server.port,
			"GET /v1/tenants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer sk_live_0000\r\nConnection: close\r\n\r\n",
		);
		expect(wrong.status).toBe(401);
		expect(wrong.raw).toMatch(/\r\nwww-authenticate: Bearer realm="as2kit", error="invalid_token"\r\n/i);
		// A wrong password at sign-in is a 401 too; its challenge names no token error.
		const login = await call(server.base, "POST", "/auth/login", {
			body: { email: owner.email, password: "not the password" },
		});
		expect(login.status).toBe(401);
		expect(login.headers.get("www-authenticate")).toBe('Bearer realm="as2kit"');
	});

	it("the 429 of a spent burst names the burst limit", async () => {
		const other = await register(server.base);
		let refused: Awaited<ReturnType<typeof call>> | undefined;
		// The Free plan's burst is 20, refilled at 100 a minute: unless each request took over 0.6 s,
		// the burst runs out well within 200.
		for (let i = 0; i < 200 && !refused; i++) {
			const answer = await call(server.base, "GET", "/v1/tenants", { token: other.token });
			if (answer.status === 429) refused = answer;
		}
		expect(refused, "no 429 within 200 requests").toBeDefined();
		expect(refused!.json.error.code).toBe("rate_limit_exceeded");
		expect(refused!.json.error.message).toMatch(/^burst limit of 20 requests exceeded/);
		expect(refused!.json.error.message).toContain("100 requests per minute");
	});
});
