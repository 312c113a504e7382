/**
 * The console as the built server serves it (issue #19), over real sockets: `/console` redirects
 * to `/console/`, every client route gets index.html (no inline script or style), the hashed
 * assets come with their type and a year's cache, every console answer carries the CSP,
 * nosniff and no-referrer, and a path that climbs out of dist/ gets nothing. With
 * AS2_CORS_ORIGINS the API answers that origin's browser (preflight too, before
 * authentication) and no other.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, curl, rawRequest } from "./clients.ts";

const ALLOWED = "http://console.example.test";

describe("the console served by the built server", () => {
	let server: BuiltServer;
	beforeAll(async () => {
		server = await startBuiltServer({ env: { AS2_CORS_ORIGINS: `${ALLOWED}, http://127.0.0.1:1` } });
	});
	afterAll(async () => {
		await server?.stop();
	});

	const expectConsoleHeaders = (headers: Headers) => {
		const csp = headers.get("content-security-policy") ?? "";
		for (const directive of [
			"default-src 'self'",
			"script-src 'self'",
			"style-src 'self'",
			"connect-src 'self'",
			"frame-ancestors 'none'",
			"base-uri 'none'",
			"form-action 'self'",
		]) {
			expect(csp).toContain(directive);
		}
		expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
		expect(headers.get("x-content-type-options")).toBe("nosniff");
		expect(headers.get("referrer-policy")).toBe("no-referrer");
	};

	it("redirects /console to /console/ with its query, and answers client routes with index.html", async () => {
		const redirect = await curl([
			"-o",
			"/dev/null",
			"-w",
			"%{http_code} %{redirect_url}",
			`${server.base}/console?x=1`,
		]);
		expect(redirect.stdout).toBe(`301 ${server.base}/console/?x=1`);
		for (const path of ["/console/", "/console/messages", "/console/messages/msg_1?tab=attempts"]) {
			const page = await fetch(`${server.base}${path}`);
			expect(page.status).toBe(200);
			expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
			expect(page.headers.get("cache-control")).toBe("no-cache");
			expectConsoleHeaders(page.headers);
			const html = await page.text();
			expect(html).toMatch(/<script type="module" src="\/console\/assets\/app-[A-Z0-9]+\.js"><\/script>/);
			// No inline script or style: every <script> has a src, no <style>, no style= attribute.
			expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
			expect(html).not.toMatch(/<style|\sstyle=|\son\w+=/i);
		}
	});

	it("serves the hashed assets with their type and a long cache, and config.json revalidated", async () => {
		const html = await (await fetch(`${server.base}/console/`)).text();
		const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
		expect(assets).toHaveLength(2);
		for (const asset of assets) {
			const response = await fetch(`${server.base}${asset}`);
			expect(response.status).toBe(200);
			expect(response.headers.get("content-type")).toBe(
				asset.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8",
			);
			expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
			expectConsoleHeaders(response.headers);
			expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(1000);
		}
		const config = await fetch(`${server.base}/console/config.json`);
		expect([config.status, config.headers.get("cache-control")]).toEqual([200, "no-cache"]);
		expect(await config.json()).toEqual({ apiBase: "" });
	});

	it("answers 404 for a missing asset and for paths that climb out of dist/", async () => {
		const missing = await fetch(`${server.base}/console/assets/app-NOPE.js`);
		expect(missing.status).toBe(404);
		expectConsoleHeaders(missing.headers);
		for (const path of [
			"/console/assets/..%2f..%2fpackage.json",
			"/console/assets/%2e%2e%2fpackage.json",
			"/console/assets/.%2e/.%2e/package.json",
		]) {
			const raw = await rawRequest(server.port, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
			expect(raw.raw).not.toContain('"name": "@as2kit/console"');
			expect(raw.status === 404 || raw.status === 400 || raw.raw.includes("<!doctype html>")).toBe(true);
		}
	});

	it("survives hostile clients: an aborted asset download, a slow request, HEAD and POST", async () => {
		const html = await (await fetch(`${server.base}/console/`)).text();
		const script = /src="(\/console\/assets\/app-[A-Z0-9]+\.js)"/.exec(html)![1]!;
		// The client resets the connection as soon as its request is out.
		const aborted = await rawRequest(server.port, `GET ${script} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, [], {
			resetAfterWrite: true,
		});
		expect(aborted.ended).not.toBe("timeout");
		// The request line and headers dribbled in, a few bytes at a time (bounded: 12 chunks).
		const head = `GET /console/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`;
		const chunks = head.match(/[\s\S]{1,6}/g)!.slice(0, 12);
		const rest = head.slice(chunks.join("").length);
		const slow = await rawRequest(server.port, chunks[0]!, [...chunks.slice(1), rest], { pauseMs: 20 });
		expect(slow.status).toBe(200);
		expect(slow.raw).toContain("<!doctype html>");
		const headOnly = await curl(["-I", "-o", "/dev/null", "-w", "%{http_code}", `${server.base}/console/`]);
		expect(headOnly.stdout).toBe("200");
		const posted = await call(server.base, "POST", "/console/", { body: { x: 1 } });
		expect(posted.status).toBe(404);
		server.assertAlive();
		expect((await fetch(`${server.base}/health`)).status).toBe(200);
	});

	it("answers an allowed origin's preflight before authentication and gives no other origin CORS headers", async () => {
		const preflight = await call(server.base, "OPTIONS", "/v1/messages", {
			headers: {
				Origin: ALLOWED,
				"Access-Control-Request-Method": "POST",
				"Access-Control-Request-Headers": "authorization, x-tenant-id",
			},
		});
		expect(preflight.status).toBe(204);
		expect(preflight.headers.get("access-control-allow-origin")).toBe(ALLOWED);
		expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
		expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
		// The real request's answer (a 401 here) carries the header, so the console can read the error.
		const refused = await call(server.base, "GET", "/auth/me", { headers: { Origin: ALLOWED } });
		expect(refused.status).toBe(401);
		expect(refused.headers.get("access-control-allow-origin")).toBe(ALLOWED);
		expect(refused.headers.get("access-control-expose-headers")).toContain("X-RateLimit-Remaining");

		const foreign = "http://elsewhere.example.test";
		const foreignPreflight = await call(server.base, "OPTIONS", "/v1/messages", {
			headers: { Origin: foreign, "Access-Control-Request-Method": "POST" },
		});
		const foreignGet = await call(server.base, "GET", "/auth/me", { headers: { Origin: foreign } });
		for (const response of [foreignPreflight, foreignGet]) {
			expect([...response.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
		}
		// A sibling of an allowed origin (another port) is not allowed: origins match exactly.
		const sibling = await call(server.base, "GET", "/health", { headers: { Origin: "http://127.0.0.1:2" } });
		expect(sibling.headers.get("access-control-allow-origin")).toBeNull();
	});
});
