/**
 * The console's API keys screen in headless Chromium against the built server (issue #19):
 * create (the key shown once, with a copy button; the API's field error under its field),
 * scopes and expiry, revoke.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axe, type ConsoleHarness, call, registerUser, screenshot, signIn, startConsole } from "./browser-harness.ts";
import { expectFieldError } from "./integrations-assertions.ts";

describe("console API keys in Chromium", () => {
	let harness: ConsoleHarness;
	beforeAll(async () => {
		harness = await startConsole();
	});
	afterAll(async () => {
		await harness?.stop();
	});

	it("creates an API key shown once with a copy button, shows the API's field error, and revokes it", async () => {
		const user = await registerUser(harness);
		const { context, page } = await harness.newPage();
		await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: harness.server.base });
		await signIn(harness, page, user);
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API keys" }).click();
		await page.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
		await page.getByText("No API keys yet").waitFor();
		await axe(page);

		await page.getByRole("button", { name: "Create an API key" }).click();
		const form = page.getByRole("form", { name: "Create an API key" });
		await form.getByLabel("Name").fill("ERP connector");
		await form.getByRole("group", { name: "Permissions" }).getByLabel("messages:write").check();
		await form.getByRole("group", { name: "Permissions" }).getByLabel("partners:read").check();
		// An expiry in the past: the API names expires_at, and the error sits under that field.
		await form.getByLabel("Expires").fill("2020-01-01T00:00");
		await form.getByRole("button", { name: "Create key" }).click();
		const expires = form.getByLabel("Expires");
		await expectFieldError(expires, /in the future/);
		await axe(page);

		const nextYear = new Date().getFullYear() + 1;
		await expires.fill(`${nextYear}-06-30T12:00`);
		await form.getByRole("button", { name: "Create key" }).click();
		const secret = page.getByRole("region", { name: "API key ERP connector" });
		await secret.waitFor();
		const key = (await secret.locator("code").textContent()) ?? "";
		expect(key).toMatch(/^tk_test_/);
		await secret.getByRole("button", { name: "Copy" }).click();
		await secret.getByRole("button", { name: "Copied" }).waitFor();
		expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
		expect(page.url()).not.toContain(key);
		const row = page.getByRole("row").filter({ hasText: "ERP connector" });
		await row.getByText("messages:write, partners:read").waitFor();
		await row.getByText(String(nextYear)).waitFor();
		await axe(page);
		await screenshot(page, "api-keys");

		// The key works, with exactly the permissions chosen.
		expect((await call(harness.server.base, "GET", "/v1/partners", { token: key })).status).toBe(200);
		expect((await call(harness.server.base, "GET", "/v1/webhook-endpoints", { token: key })).status).toBe(403);
		const listed = await call(harness.server.base, "GET", "/v1/api-keys", { token: user.token });
		expect(listed.json.data[0]).toMatchObject({ name: "ERP connector", tenant_id: user.tenantId, scope: "tenant" });

		// Shown once: a reload lists the key without its value.
		await page.reload();
		await page.getByRole("row").filter({ hasText: "ERP connector" }).waitFor();
		expect(await page.content()).not.toContain(key);

		await page.getByRole("button", { name: "Revoke ERP connector" }).click();
		const dialog = page.getByRole("dialog", { name: "Revoke this API key?" });
		await dialog.waitFor();
		await axe(page);
		await dialog.getByRole("button", { name: "Revoke key" }).click();
		await page.getByText("No API keys yet").waitFor();
		expect((await call(harness.server.base, "GET", "/v1/partners", { token: key })).status).toBe(401);
		await context.close();
	});

	it("creates an account key restricted to one of the account's tenants", async () => {
		const user = await registerUser(harness);
		const second = await call(harness.server.base, "POST", "/v1/tenants", {
			token: user.token,
			body: { name: "Second Plant" },
		});
		expect(second.status, second.text).toBe(201);
		const { context, page } = await harness.newPage();
		await signIn(harness, page, user);
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API keys" }).click();
		await page.getByRole("button", { name: "Create an API key" }).click();
		const form = page.getByRole("form", { name: "Create an API key" });
		await form.getByLabel("Name").fill("Plant two reporting");
		await form.getByLabel("Scope").selectOption("account");
		await form.getByRole("group", { name: "Restrict to tenants" }).getByLabel("Second Plant").check();
		// Account permissions are offered only for an account key.
		await form.getByRole("group", { name: "Permissions" }).getByLabel("tenants:read").check();
		await form.getByRole("button", { name: "Create key" }).click();
		const key =
			(await page.getByRole("region", { name: "API key Plant two reporting" }).locator("code").textContent()) ?? "";
		expect(key).toMatch(/^pk_test_/);
		await page.getByRole("row").filter({ hasText: "Account, only Second Plant" }).waitFor();
		await axe(page);
		const listed = await call(harness.server.base, "GET", "/v1/api-keys", { token: user.token });
		expect(listed.json.data[0]).toMatchObject({ scope: "account", allowed_tenant_ids: [second.json.data.id] });
		await context.close();
	});
});
