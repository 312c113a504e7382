/**
 * Sign in, sign out and register in headless Chromium against the built server (issue #19):
 * the form's fields are labelled Email and Password, the button is named Sign in, keyboard
 * alone signs in, the API's field errors show next to their fields, the token lives in
 * sessionStorage (never in a URL) and sign out revokes it; every navigation link opens a
 * screen with one h1; an account user switches tenants; a revoked session signs out.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axe, type ConsoleHarness, call, registerUser, screenshot, signIn, startConsole } from "./browser-harness.ts";

describe("console sign-in in Chromium", () => {
	let harness: ConsoleHarness;
	beforeAll(async () => {
		harness = await startConsole();
	});
	afterAll(async () => {
		await harness?.stop();
	});

	it("signs in with the keyboard alone, keeps the token in sessionStorage only, and signs out", async () => {
		const user = await registerUser(harness);
		const { context, page } = await harness.newPage();
		await page.goto(harness.url);
		await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
		await axe(page);
		await screenshot(page, "sign-in");
		// Tab order: Email, Password, Sign in.
		await page.keyboard.press("Tab");
		await page.keyboard.type(user.email);
		await page.keyboard.press("Tab");
		await page.keyboard.type(user.password);
		await page.keyboard.press("Tab");
		expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Sign in");
		await page.keyboard.press("Enter");
		await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
		for (const name of ["Overview", "Messages", "Partners", "Certificates", "Webhooks", "API keys", "EPCIS"]) {
			await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true }).waitFor();
		}
		const stored = await page.evaluate(() => ({
			session: sessionStorage.getItem("as2kit.token"),
			local: Object.keys(localStorage).filter((key) => key !== "as2kit.theme"),
			url: location.href,
		}));
		expect(stored.session).toMatch(/\S{20,}/);
		expect(stored.local).toEqual([]);
		expect(stored.url).not.toContain(stored.session);
		// The theme toggle overrides the system's scheme, and a reload keeps both it and the session.
		await page.emulateMedia({ colorScheme: "light" });
		await page.getByRole("button", { name: "Switch to dark theme" }).click();
		expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe("dark");
		await page.reload();
		await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
		await page.getByRole("button", { name: "Switch to light theme" }).waitFor();
		expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
		await page.getByRole("button", { name: "Sign out" }).click();
		await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
		expect(await page.evaluate(() => sessionStorage.getItem("as2kit.token"))).toBeNull();
		// The token was revoked server-side, not just forgotten.
		expect((await call(harness.server.base, "GET", "/auth/me", { token: stored.session! })).status).toBe(401);
		await context.close();
	});

	it("shows a wrong password as an alert and the API's field errors next to their fields", async () => {
		const user = await registerUser(harness);
		const { context, page } = await harness.newPage();
		await page.goto(harness.url);
		await page.getByLabel("Email").fill(user.email);
		await page.getByLabel("Password").fill("not the password");
		await page.getByRole("button", { name: "Sign in" }).click();
		await page
			.getByRole("alert")
			.filter({ hasText: /password/i })
			.waitFor();
		await page.getByRole("link", { name: "Create an account" }).click();
		await page.getByRole("heading", { level: 1, name: "Create an account" }).waitFor();
		await page.getByLabel("Name").fill("Console Company");
		await page.getByLabel("Email").fill(`console${process.pid}@example.com`);
		await page.getByLabel("Password", { exact: true }).fill("short");
		await page.getByLabel("Confirm password").fill("different");
		await page.getByRole("button", { name: "Create account" }).click();
		// The API names password and password_confirmation: each error is tied to its input.
		const password = page.getByLabel("Password", { exact: true });
		await expectDescribedBy(password, /at least 8 characters/);
		await expectDescribedBy(page.getByLabel("Confirm password"), /does not match/);
		await axe(page);
		await screenshot(page, "register-errors");
		await page.getByLabel("Password", { exact: true }).fill("correct horse battery");
		await page.getByLabel("Confirm password").fill("correct horse battery");
		await page.getByRole("button", { name: "Create account" }).click();
		await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
		await context.close();
	});

	it("opens a screen with one h1 for every navigation link, switches tenants, and signs out on a revoked session", async () => {
		const user = await registerUser(harness);
		const second = await call(harness.server.base, "POST", "/v1/tenants", {
			token: user.token,
			body: { name: "Second Tenant" },
		});
		expect(second.status, second.text).toBe(201);
		const { context, page } = await harness.newPage();
		await signIn(harness, page, user);
		const nav = page.getByRole("navigation", { name: "Main" });
		for (const name of ["Messages", "Partners", "Certificates", "Webhooks", "API keys", "EPCIS", "Overview"]) {
			await nav.getByRole("link", { name, exact: true }).click();
			await page.waitForURL((url) => url.pathname.startsWith("/console/"));
			await nav.getByRole("link", { name, exact: true }).and(page.locator("[aria-current=page]")).waitFor();
			await page.getByRole("heading", { level: 1 }).first().waitFor();
			expect(await page.getByRole("heading", { level: 1 }).count(), name).toBe(1);
			await axe(page);
		}
		// The tenant switcher: requests now carry X-Tenant-ID of the chosen tenant.
		const switcher = page.getByLabel("Tenant");
		await switcher.selectOption({ label: "Second Tenant" });
		await page.getByText("Tenant Second Tenant").waitFor();
		const seen: string[] = [];
		page.on("request", (request) => {
			const tenant = request.headers()["x-tenant-id"];
			if (tenant) seen.push(tenant);
		});
		await nav.getByRole("link", { name: "Messages", exact: true }).click();
		await page.getByRole("heading", { level: 1, name: "Messages" }).waitFor();
		await page.getByText("No messages yet").waitFor();
		expect(new Set(seen)).toEqual(new Set([second.json.data.id]));
		await screenshot(page, "tenant-switched");
		// A session revoked elsewhere: the next answer is 401 and the console signs out.
		const consoleToken = await page.evaluate(() => sessionStorage.getItem("as2kit.token"));
		expect((await call(harness.server.base, "POST", "/auth/logout", { token: consoleToken! })).status).toBe(200);
		await page.reload();
		await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
		expect(await page.evaluate(() => sessionStorage.getItem("as2kit.token"))).toBeNull();
		await context.close();
	});

	it("shows a screen's failure on an answer of the wrong shape, keeps the navigation working, and offers a way out when the account cannot be read", async () => {
		const user = await registerUser(harness);
		const { context, page } = await harness.newPage();
		// An answer the overview cannot read: 200 with the usage's fields missing.
		await page.route("**/v1/account/usage", (route) =>
			route.fulfill({ status: 200, contentType: "application/json", body: '{"data":{}}' }),
		);
		await page.goto(harness.url);
		await page.getByLabel("Email").fill(user.email);
		await page.getByLabel("Password").fill(user.password);
		await page.getByRole("button", { name: "Sign in" }).click();
		await page.getByRole("heading", { level: 1, name: "This screen could not be shown" }).waitFor();
		await page.getByRole("alert").waitFor();
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Messages", exact: true }).click();
		await page.getByRole("heading", { level: 1, name: "Messages" }).waitFor();
		// The account itself cannot be read: say so, and offer a way out.
		await page.route("**/auth/me", (route) =>
			route.fulfill({ status: 503, contentType: "text/html", body: "<h1>Service Unavailable</h1>" }),
		);
		await page.reload();
		await page.getByRole("heading", { level: 1, name: "Your account could not be loaded" }).waitFor();
		await axe(page);
		await page.getByRole("button", { name: "Sign out" }).click();
		await page.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
		await context.close();
	});
});

async function expectDescribedBy(input: import("playwright-core").Locator, text: RegExp) {
	await input.and(input.page().locator("[aria-invalid=true]")).waitFor();
	const description = await input.evaluate((element) =>
		(element.getAttribute("aria-describedby") ?? "")
			.split(" ")
			.map((id) => document.getElementById(id)?.textContent ?? "")
			.join(" "),
	);
	expect(description).toMatch(text);
}
