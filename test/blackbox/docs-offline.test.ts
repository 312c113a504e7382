/**
 * `/docs` works offline (issue #18 §1): a real headless Chromium (Debian's `chromium`, which
 * `.ci/run` installs when missing, driven by playwright-core) loads the built server's API
 * reference with every request to anything but loopback refused, and the page lists the
 * operations. The reference UI's script comes from the server (the pinned
 * `@scalar/api-reference`), not from a CDN. `/docs/` redirects to `/docs`.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { curl } from "./clients.ts";

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((path) => existsSync(path));

describe("/docs in headless Chromium, offline", () => {
	let server: BuiltServer;
	let browser: Browser;
	beforeAll(async () => {
		if (!CHROMIUM) throw new Error("Debian's chromium is not installed (.ci/run installs it)");
		server = await startBuiltServer();
		browser = await chromium.launch({
			executablePath: CHROMIUM,
			// As root in a container Chromium needs --no-sandbox; no GPU on CI machines.
			args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
		});
	});
	afterAll(async () => {
		await browser?.close();
		await server?.stop();
	});

	it("lists the operations with every non-loopback request refused", async () => {
		const context = await browser.newContext();
		const refused: string[] = [];
		const served: string[] = [];
		await context.route("**/*", (route) => {
			const url = new URL(route.request().url());
			if (url.hostname === "127.0.0.1" || url.hostname === "localhost") {
				served.push(url.pathname);
				return route.continue();
			}
			refused.push(url.href);
			return route.abort("internetdisconnected");
		});
		try {
			const page = await context.newPage();
			await page.goto(`${server.base}/docs`, { waitUntil: "domcontentloaded", timeout: 30_000 });
			// The first group is open: its operations are listed; the others by their tags.
			await page
				.getByText("Register a user, with an account and its first tenant")
				.first()
				.waitFor({ state: "visible", timeout: 45_000 });
			await page.getByText("Log in: a new session token").first().waitFor({ state: "visible", timeout: 10_000 });
			const listed = await page.evaluate(() => document.body.textContent ?? "");
			for (const tag of ["Partners", "Certificates", "Messages", "Webhooks"]) expect(listed).toContain(tag);
			expect(served).toEqual(expect.arrayContaining(["/docs", "/docs/scalar.js", "/openapi.json"]));
			// Nothing the page needs comes from elsewhere: no script, stylesheet or document was refused.
			expect(refused.filter((url) => /\.(m?js|css)(\?|$)/.test(url))).toEqual([]);
		} finally {
			await context.close();
		}
	}, 120_000);

	it("serves the reference UI's script itself and redirects /docs/ to /docs", async () => {
		const page = await curl([`${server.base}/docs`]);
		expect(page.stdout).toContain('src="docs/scalar.js"');
		expect(page.stdout).not.toMatch(/https?:\/\/cdn\./);
		const script = await curl([
			"-o",
			"/dev/null",
			"-w",
			"%{http_code}|%{content_type}|%{size_download}",
			`${server.base}/docs/scalar.js`,
		]);
		const [status, type, size] = script.stdout.split("|");
		expect([status, type]).toEqual(["200", "text/javascript; charset=utf-8"]);
		expect(Number(size)).toBeGreaterThan(100_000);
		const redirect = await curl(["-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", `${server.base}/docs/?x=1`]);
		expect(redirect.stdout).toBe(`301 ${server.base}/docs?x=1`);
	});
});
