/**
 * The console's browser suite harness (issue #19): the BUILT server (test/blackbox/built-server.ts,
 * what `npm start` runs, so `npm run build` first) and Debian's chromium driven by
 * playwright-core, as test/blackbox/docs-offline.test.ts does.
 *
 * Every request the page makes is routed: loopback continues, anything else is aborted and
 * recorded, and `console.stop()` fails the test file when anything was attempted. `axe(page)`
 * fails on serious or critical violations; `screenshot(page, name)` writes
 * test-results/console/<name>-light.png and -dark.png for people to look at.
 *
 * One server and one browser per test file (`startConsole()` in beforeAll, `stop()` in
 * afterAll); each test opens its own context (`newPage()`), so sessionStorage starts empty.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { AxeBuilder } from "@axe-core/playwright";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { expect } from "vitest";
import { type BuiltServer, REPO, type StartOptions, startBuiltServer } from "../../../test/blackbox/built-server.ts";
import { call, type Registered, register } from "../../../test/blackbox/clients.ts";

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((path) => existsSync(path));
export const SCREENSHOTS = join(REPO, "test-results/console");
/** Generous: a loaded 2-core CI machine runs the suite. */
export const UI_TIMEOUT_MS = 20_000;

export interface ConsoleHarness {
	server: BuiltServer;
	browser: Browser;
	/** `http://127.0.0.1:<port>/console/` */
	url: string;
	/** A fresh browser context (own sessionStorage) and its page, routed loopback-only. */
	newPage(): Promise<{ context: BrowserContext; page: Page }>;
	/** Requests the page tried to send anywhere but loopback. */
	refused: string[];
	/** Closes the browser and stops the server; fails when any non-loopback request was tried. */
	stop(): Promise<void>;
}

export async function startConsole(options: StartOptions = {}): Promise<ConsoleHarness> {
	if (!CHROMIUM) throw new Error("Debian's chromium is not installed (.ci/run installs it)");
	const server = await startBuiltServer(options);
	let browser: Browser;
	try {
		browser = await chromium.launch({
			executablePath: CHROMIUM,
			// As root in a container Chromium needs --no-sandbox; no GPU on CI machines.
			args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
		});
	} catch (error) {
		await server.stop();
		throw error;
	}
	const refused: string[] = [];
	const contexts: BrowserContext[] = [];
	return {
		server,
		browser,
		url: `${server.base}/console/`,
		refused,
		async newPage() {
			const context = await browser.newContext({ acceptDownloads: true });
			contexts.push(context);
			await context.route("**/*", (route) => {
				const url = new URL(route.request().url());
				if (url.protocol === "data:" || url.protocol === "blob:") return route.continue();
				if (url.hostname === "127.0.0.1" || url.hostname === "localhost") return route.continue();
				refused.push(url.href);
				return route.abort("internetdisconnected");
			});
			const page = await context.newPage();
			page.setDefaultTimeout(UI_TIMEOUT_MS);
			return { context, page };
		},
		async stop() {
			for (const context of contexts) await context.close().catch(() => undefined);
			await browser.close();
			await server.stop();
			expect(refused, "requests that tried to leave loopback").toEqual([]);
		},
	};
}

/** Fails on any serious or critical axe-core violation of the page as it is now. */
export async function axe(page: Page): Promise<void> {
	const results = await new AxeBuilder({ page }).analyze();
	const severe = results.violations
		.filter((violation) => violation.impact === "serious" || violation.impact === "critical")
		.map((violation) => ({
			id: violation.id,
			impact: violation.impact,
			help: violation.help,
			nodes: violation.nodes.map((node) => node.target.join(" ")).slice(0, 5),
		}));
	expect(severe, `axe violations on ${page.url()}`).toEqual([]);
}

/** Saves the page in light and dark to test-results/console/<name>-{light,dark}.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
	mkdirSync(SCREENSHOTS, { recursive: true });
	for (const scheme of ["light", "dark"] as const) {
		await page.emulateMedia({ colorScheme: scheme });
		await page.screenshot({ path: join(SCREENSHOTS, `${name}-${scheme}.png`), fullPage: true });
	}
	await page.emulateMedia({ colorScheme: "light" });
}

/** Registers a user through the API (faster than the form when the form is not under test). */
export const registerUser = (harness: ConsoleHarness): Promise<Registered> => register(harness.server.base);

/** Signs in through the form with the mouse-free path a user takes: fill, press Enter. */
export async function signIn(harness: ConsoleHarness, page: Page, user: { email: string; password: string }) {
	await page.goto(harness.url);
	await page.getByLabel("Email").fill(user.email);
	await page.getByLabel("Password").fill(user.password);
	await page.getByRole("button", { name: "Sign in" }).click();
	await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
}

export { call };
