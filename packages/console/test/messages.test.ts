/**
 * The console's message flows in headless Chromium against the built server (issue #19):
 * send a file from the console (keyboard only) to a partner created through the API, watch
 * it reach delivered, read its timeline and download the payload; a failed live send shows
 * its compatibility hint and, once the partner is fixed, Retry delivers it. The partner is an
 * AS2 endpoint on 127.0.0.1 (test/helpers/quirky-partner.ts). axe-core on every screen.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey } from "../../../test/blackbox/clients.ts";
import { makeCertificates } from "../../server/test/helpers/certs.ts";
import {
	createPartnerWithCertificate,
	processedAnswer,
	type QuirkyPartners,
	startQuirkyPartners,
} from "../../server/test/helpers/quirky-partner.ts";
import {
	axe,
	type ConsoleHarness,
	call,
	registerUser,
	screenshot,
	signIn,
	startConsole,
	UI_TIMEOUT_MS,
} from "./browser-harness.ts";

const certs = makeCertificates();
const partnerKey = certs.selfSigned("console-partner");
const X12 = "ISA*00*          *00*          *ZZ*OURS*ZZ*CONSOLE~\r\nST*850*0001~\r\n";

let harness: ConsoleHarness;
let partners: QuirkyPartners;

beforeAll(async () => {
	partners = await startQuirkyPartners();
	harness = await startConsole({
		env: { AS2_ALLOW_HTTP: "1", AS2_ALLOW_PRIVATE_TARGETS: "1", AS2_DEFAULT_PLAN: "professional" },
	});
});
afterAll(async () => {
	await harness?.stop();
	await partners?.close();
	rmSync(certs.dir, { recursive: true, force: true });
});

async function createPartner(token: string, as2Id: string, settings: Record<string, unknown> = {}) {
	return createPartnerWithCertificate(
		(path, body) => call(harness.server.base, "POST", path, { token, body }),
		{
			name: `Partner ${as2Id}`,
			as2_id: as2Id,
			url: partners.url,
			mdn_mode: "sync",
			mdn: { signed: true },
			...settings,
		},
		partnerKey.certPem,
	);
}

describe("messages in the console", () => {
	it("sends a file with the keyboard, watches it reach delivered, shows its timeline and downloads the payload", async () => {
		const user = await registerUser(harness);
		const { context, page } = await harness.newPage();
		await signIn(harness, page, user);
		await axe(page);
		await screenshot(page, "overview-empty");
		await createPartner(user.token, "CONSOLE-TEST");

		const nav = page.getByRole("navigation", { name: "Main" });
		await nav.getByRole("link", { name: "Messages", exact: true }).click();
		await page.getByRole("heading", { level: 1, name: "Messages" }).waitFor();
		await page.getByText("No messages yet").waitFor();
		await axe(page);
		await page.getByRole("link", { name: "Send a message" }).first().click();
		await page.getByRole("heading", { level: 1, name: "Send a message" }).waitFor();
		await page
			.getByLabel("Partner")
			.getByRole("option", { name: /CONSOLE-TEST/ })
			.waitFor({ state: "attached" });
		await axe(page);

		// Keyboard only from the first field: the partner is chosen, Space opens the file chooser.
		// In the certificates' scratch directory (removed in afterAll): the browser reads the file
		// while it uploads, after the last key press.
		const file = join(certs.dir, `order-${process.pid}.x12`);
		writeFileSync(file, X12);
		// Armed before the focus moves: adding the listener makes Playwright turn on the browser's
		// file chooser interception without awaiting it (a flake under load: Space opened a chooser
		// nobody intercepted). The awaited round trips to the same page below reach the browser
		// after that, so the interception is on when Space is pressed.
		const chooser = page.waitForEvent("filechooser");
		await page.getByLabel("Partner").focus();
		await page.keyboard.press("Tab");
		// Space opens the chooser only on the file input: Tab must have reached it.
		expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("file");
		await page.keyboard.press("Space");
		await (await chooser).setFiles(file);
		await page.keyboard.press("Tab");
		expect(await page.getByLabel("Content type").inputValue()).toBe("application/edi-x12");
		await page.keyboard.press("Tab");
		await page.keyboard.type("Purchase order 4711");
		await page.keyboard.press("Tab");
		expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Send message");
		await page.keyboard.press("Enter");

		await page.getByRole("heading", { level: 1, name: "Purchase order 4711" }).waitFor();
		// A test-environment message: the simulated partner delivers it; the screen polls.
		await page.locator(".lead .badge", { hasText: "delivered" }).waitFor({ timeout: UI_TIMEOUT_MS * 2 });
		const timeline = page.getByRole("list", { name: "Timeline" });
		await timeline.getByText("delivered").waitFor();
		expect(await timeline.getByRole("listitem").count()).toBeGreaterThanOrEqual(2);
		await axe(page);
		await screenshot(page, "message-delivered");

		const download = page.waitForEvent("download");
		await page.getByRole("button", { name: "Download payload" }).click();
		const saved = await download;
		expect(saved.suggestedFilename()).toBe(`order-${process.pid}.x12`);
		expect(saved.url()).toMatch(/^blob:/);
		expect(readFileSync((await saved.path())!, "utf8")).toBe(X12);

		await nav.getByRole("link", { name: "Messages", exact: true }).click();
		await page.getByRole("link", { name: "Purchase order 4711" }).waitFor();
		await page.getByLabel("Status").selectOption("failed");
		await page.getByText("No results").waitFor();
		await page.getByLabel("Status").selectOption("delivered");
		await page.getByRole("link", { name: "Purchase order 4711" }).waitFor();
		await page.getByLabel("Environment").selectOption("live");
		await page.getByText("No results").waitFor();
		await page.getByLabel("Environment").selectOption("test");
		await page.getByRole("link", { name: "Purchase order 4711" }).waitFor();
		await axe(page);
		await screenshot(page, "messages");
		await nav.getByRole("link", { name: "Overview", exact: true }).click();
		await page.getByRole("link", { name: "1 delivered today" }).waitFor();
		await axe(page);
		await screenshot(page, "overview");
		await context.close();
	});

	it("shows a failed live send's compatibility hint, and Retry after a confirmation delivers it", async () => {
		const user = await registerUser(harness);
		const liveKey = await createKey(harness.server.base, user.token, {
			scope: "tenant",
			tenant_id: user.tenantId,
			environment: "live",
			permissions: ["*"],
		});
		const tenant = await call(harness.server.base, "GET", `/v1/tenants/${user.tenantId}`, { token: user.token });
		const partnerId = await createPartner(liveKey, "CONSOLE-QUIRKY", { sign: true });
		partners.answer("CONSOLE-QUIRKY", () => ({ status: 400, body: "Bad Request: no Content-Transfer-Encoding" }));
		const sent = await call(harness.server.base, "POST", "/v1/messages", {
			token: liveKey,
			body: {
				partner_id: partnerId,
				content_type: "application/edi-x12",
				subject: "Invoice 9",
				payload: { content: X12 },
			},
		});
		expect(sent.status, sent.text).toBe(202);

		const { context, page } = await harness.newPage();
		await signIn(harness, page, user);
		await page.goto(`${harness.url}messages/${sent.json.data.id}`);
		await page.getByRole("heading", { level: 1, name: "Invoice 9" }).waitFor();
		const hint = page.getByRole("region", { name: "Compatibility hint" });
		await hint.waitFor({ timeout: UI_TIMEOUT_MS * 2 });
		expect(await hint.textContent()).toContain("compatibility.transfer_encoding");
		await page.getByText("PARTNER_REJECTED").first().waitFor();
		await axe(page);
		await screenshot(page, "message-failed-hint");
		// The overview lists it among the failures that need attention, and leads back to it.
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Overview", exact: true }).click();
		await page
			.getByRole("region", { name: "Failures that need attention" })
			.getByRole("link", { name: "Invoice 9" })
			.click();
		await hint.waitFor();

		// The partner is fixed: it now answers with a signed positive MDN.
		partners.answer("CONSOLE-QUIRKY", (request) =>
			processedAnswer(certs.dir, request, partnerKey, tenant.json.data.as2_id),
		);
		await page.getByRole("button", { name: "Retry" }).click();
		const dialog = page.getByRole("dialog", { name: "Retry this message now?" });
		await dialog.waitFor();
		// Focus starts on Cancel; Escape closes without retrying.
		expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Cancel");
		await axe(page);
		await page.keyboard.press("Escape");
		await dialog.waitFor({ state: "hidden" });
		expect(partners.requests("CONSOLE-QUIRKY")).toHaveLength(1);
		await page.getByRole("button", { name: "Retry" }).click();
		await dialog.getByRole("button", { name: "Retry" }).click();
		await page.locator(".lead .badge", { hasText: "delivered" }).waitFor({ timeout: UI_TIMEOUT_MS * 2 });
		await page.getByRole("region", { name: "Compatibility hint" }).waitFor({ state: "detached" });
		await page.getByRole("button", { name: "Download the request of attempt 2" }).waitFor();
		expect(partners.requests("CONSOLE-QUIRKY")).toHaveLength(2);

		// The overview shows this month's live messages against the plan (GET /v1/account/usage).
		const usage = await call(harness.server.base, "GET", "/v1/account/usage", { token: user.token });
		expect(usage.status, usage.text).toBe(200);
		expect(usage.json.data.live_messages.used).toBeGreaterThanOrEqual(1);
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Overview", exact: true }).click();
		await page
			.getByRole("region", { name: "Plan: professional" })
			.getByText(`${usage.json.data.live_messages.used} of 100,000`)
			.waitFor();
		await context.close();
	});

	it("cancels a scheduled message after a confirmation, then resends its payload as a new message", async () => {
		const user = await registerUser(harness);
		const partnerId = await createPartner(user.token, "CONSOLE-LATER");
		const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
		const sent = await call(harness.server.base, "POST", "/v1/messages", {
			token: user.token,
			body: {
				partner_id: partnerId,
				content_type: "application/edi-x12",
				subject: "Forecast",
				scheduled_at: tomorrow,
				payload: { content: X12 },
			},
		});
		expect(sent.status, sent.text).toBe(202);
		const { context, page } = await harness.newPage();
		await signIn(harness, page, user);
		await page.goto(`${harness.url}messages/${sent.json.data.id}`);
		await page.getByRole("heading", { level: 1, name: "Forecast" }).waitFor();
		await page.locator(".lead .badge", { hasText: "queued" }).waitFor();
		await page.getByRole("button", { name: "Cancel message" }).click();
		const dialog = page.getByRole("dialog", { name: "Cancel this message?" });
		await dialog.getByRole("button", { name: "Cancel message" }).click();
		await page.getByText("CANCELLED").first().waitFor();
		await page.locator(".lead .badge", { hasText: "failed" }).waitFor();
		await page.getByRole("button", { name: "Resend" }).click();
		await page
			.getByRole("dialog", { name: "Resend as a new message?" })
			.getByRole("button", { name: "Resend" })
			.click();
		await page.waitForURL(
			(url) => url.pathname.startsWith("/console/messages/") && !url.pathname.endsWith(sent.json.data.id),
		);
		await page.getByRole("heading", { level: 1, name: "Forecast" }).waitFor();
		await page.locator(".lead .badge", { hasText: "delivered" }).waitFor({ timeout: UI_TIMEOUT_MS * 2 });
		await context.close();
	});

	it("pages through the list, searches it, and shows the API's filter error next to its field", async () => {
		const user = await registerUser(harness);
		const partnerId = await createPartner(user.token, "CONSOLE-MANY");
		for (let n = 1; n <= 21; n++) {
			const sent = await call(harness.server.base, "POST", "/v1/messages", {
				token: user.token,
				body: {
					partner_id: partnerId,
					content_type: "text/plain",
					subject: `Batch ${n}`,
					payload: { content: `line ${n}` },
				},
			});
			expect(sent.status, sent.text).toBe(202);
		}
		const { context, page } = await harness.newPage();
		await signIn(harness, page, user);
		await page.goto(`${harness.url}messages`);
		await page.getByText("1–20 of 21").waitFor();
		await page.getByRole("button", { name: "Next page" }).click();
		await page.getByText("21–21 of 21").waitFor();
		expect(await page.getByRole("button", { name: "Next page" }).isDisabled()).toBe(true);
		await page.getByLabel("Search").fill("Batch 7");
		await page.getByLabel("Search").press("Enter");
		await page.getByText("1–1 of 1").waitFor();
		await page.getByRole("link", { name: "Batch 7" }).waitFor();
		await page.getByLabel("Search").fill("");
		await page.getByLabel("From", { exact: true }).fill("2026-02-02");
		await page.getByLabel("To", { exact: true }).fill("2026-01-01");
		await page.getByRole("button", { name: "Apply filters" }).click();
		const to = page.getByLabel("To", { exact: true });
		await to.and(page.locator("[aria-invalid=true]")).waitFor();
		const describedBy = await to.getAttribute("aria-describedby");
		expect(await page.locator(`#${describedBy}`).textContent()).toBe("must be later than from_date");
		await axe(page);
		// A filter the overview links with (?mdn_status=…) is shown in the form and kept when
		// another filter changes.
		await page.goto(`${harness.url}messages?mdn_status=timeout`);
		await page.getByText("No results").waitFor();
		expect(await page.getByLabel("MDN").inputValue()).toBe("timeout");
		await page.getByLabel("Direction").selectOption("outbound");
		await page.getByText("No results").waitFor();
		expect(await page.getByLabel("MDN").inputValue()).toBe("timeout");
		await page.getByLabel("MDN").selectOption("");
		await page.getByText("1–20 of 21").waitFor();
		await context.close();
	});
});
