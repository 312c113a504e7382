/**
 * The console deployed as static files on another origin (README, "Console"): a plain static
 * server on 127.0.0.1 serves packages/console/dist with its config.json pointing at the built
 * API server, which allows that origin in AS2_CORS_ORIGINS. Signing in and opening a list work
 * across the origins; the same files on an origin the API does not allow cannot reach it.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleHarness, registerUser, startConsole } from "./browser-harness.ts";

const DIST = join(import.meta.dirname, "../dist");
const TYPES: Record<string, string> = {
	js: "text/javascript",
	css: "text/css",
	html: "text/html",
	json: "application/json",
};

/** A static host: dist/ under /console/, index.html for client routes, config.json naming the API. */
function staticHost(apiBase: () => string): Server {
	return createServer((request, response) => {
		const path = new URL(request.url ?? "/", "http://x").pathname;
		if (path === "/console/config.json") {
			response.writeHead(200, { "content-type": TYPES.json }).end(JSON.stringify({ apiBase: apiBase() }));
			return;
		}
		const asset = /^\/console\/(assets\/[\w-]+\.(js|css))$/.exec(path);
		const file = asset ? asset[1]! : "index.html";
		const type = TYPES[asset ? asset[2]! : "html"]!;
		try {
			response.writeHead(200, { "content-type": type }).end(readFileSync(join(DIST, file)));
		} catch {
			response.writeHead(404).end();
		}
	});
}

const listen = (server: Server) =>
	new Promise<string>((resolve) =>
		server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
	);
const close = (server: Server) =>
	new Promise<void>((resolve) => {
		server.close(() => resolve());
		server.closeAllConnections();
	});

describe("the console as static files on another origin", () => {
	let harness: ConsoleHarness;
	let apiBase = "";
	const allowed = staticHost(() => apiBase);
	const foreign = staticHost(() => apiBase);
	let allowedOrigin: string;
	let foreignOrigin: string;
	beforeAll(async () => {
		[allowedOrigin, foreignOrigin] = await Promise.all([listen(allowed), listen(foreign)]);
		harness = await startConsole({ env: { AS2_CORS_ORIGINS: allowedOrigin } });
		apiBase = harness.server.base;
	});
	afterAll(async () => {
		await harness?.stop();
		await Promise.all([close(allowed), close(foreign)]);
	});

	it("signs in and lists messages through CORS from an allowed origin, and cannot reach the API from another", async () => {
		const user = await registerUser(harness);
		const { context, page } = await harness.newPage();
		await page.goto(`${allowedOrigin}/console/`);
		await page.getByLabel("Email").fill(user.email);
		await page.getByLabel("Password").fill(user.password);
		await page.getByRole("button", { name: "Sign in" }).click();
		await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Messages", exact: true }).click();
		await page.getByText("No messages yet").waitFor();
		expect(new URL(page.url()).origin).toBe(allowedOrigin);

		await page.goto(`${foreignOrigin}/console/`);
		await page.getByLabel("Email").fill(user.email);
		await page.getByLabel("Password").fill(user.password);
		await page.getByRole("button", { name: "Sign in" }).click();
		await page.getByRole("alert").filter({ hasText: "the server could not be reached" }).waitFor();
		await context.close();
	});
});
