/**
 * Partners, master partners and overrides in headless Chromium against the built server
 * (issue #19): create a partner from the UI with the API's field errors beside their fields,
 * upload its certificate and roll it over, edit it, validate and test it, read its statistics;
 * a master partner, its inherited view in the tenant, an override and its reset; the
 * Certificates screen: download the identity, roll it over with a PKCS#12, partner expiry.
 *
 * The partner URL is a loopback HTTP receiver this file starts (AS2_ALLOW_PRIVATE_TARGETS and
 * AS2_ALLOW_HTTP let the server reach it), so validate and test connect to nothing else.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Locator } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testIdentity } from "../../as2-core/test/helpers/certs.ts";
import { axe, type ConsoleHarness, call, registerUser, screenshot, signIn, startConsole } from "./browser-harness.ts";

describe("console partners in Chromium", () => {
	let harness: ConsoleHarness;
	let receiver: Server;
	let receiverUrl: string;
	/** A real certificate to upload: another tenant's generated identity (public part only). */
	let certificatePem: string;
	let secondCertificatePem: string;

	beforeAll(async () => {
		receiver = createServer((request, response) => {
			request.resume();
			request.on("end", () => response.writeHead(200, { "content-type": "text/plain" }).end("ok"));
		});
		await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
		receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/as2`;
		harness = await startConsole({
			// Professional: a user clicking through a whole flow in seconds stays under its burst of 200.
			env: { AS2_ALLOW_PRIVATE_TARGETS: "1", AS2_ALLOW_HTTP: "1", AS2_DEFAULT_PLAN: "professional" },
		});
		[certificatePem, secondCertificatePem] = await Promise.all([identityPem(), identityPem()]);
	});
	afterAll(async () => {
		await harness?.stop();
		await new Promise((resolve) => receiver?.close(resolve));
	});

	async function identityPem(): Promise<string> {
		const other = await registerUser(harness);
		const list = await call(harness.server.base, "GET", "/v1/certificates?type=identity", { token: other.token });
		expect(list.status, list.text).toBe(200);
		return list.json.data[0].certificate_pem;
	}

	it("creates a partner with a certificate, rolls it over, edits, validates, tests and charts it", async () => {
		const user = await registerUser(harness);
		const { context, page } = await harness.newPage();
		await signIn(harness, page, user);
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Partners" }).click();
		await page.getByRole("heading", { level: 1, name: "Partners" }).waitFor();
		await page.getByText("No partners yet").waitFor();
		await axe(page);
		await screenshot(page, "partners-empty");

		await page.getByRole("link", { name: "Add a partner" }).click();
		await page.getByRole("heading", { level: 1, name: "Add a partner" }).waitFor();
		await page.getByLabel("Name", { exact: true }).fill("Acme Retail");
		await page.getByLabel("AS2 ID").fill(`ACME-${process.pid}`);
		await page.getByLabel("URL").fill("ftp://acme.example/as2");
		await page.getByRole("button", { name: "Create partner" }).click();
		// The API's INVALID_ENDPOINT_URL is shown under the URL field and tied to it.
		const url = page.getByLabel("URL");
		await expect.poll(() => url.getAttribute("aria-invalid")).toBe("true");
		const described = await url.getAttribute("aria-describedby");
		expect(await page.locator(`[id="${described?.split(" ").at(-1)}"]`).textContent()).toMatch(/url|https/i);
		await axe(page);
		await screenshot(page, "partner-new-errors");

		await url.fill(receiverUrl);
		await page.getByRole("button", { name: "Create partner" }).click();
		await page.getByRole("heading", { level: 1, name: "Acme Retail" }).waitFor();
		const partnerId = new URL(page.url()).pathname.split("/").at(-1)!;
		expect(partnerId).toMatch(/^prt_/);
		await page.getByText("No certificate yet").waitFor();

		// Upload the partner's certificate: fingerprint and validity are shown as the API has them.
		await page.getByLabel("Certificate name").fill("Acme 2026");
		await page.getByLabel("Certificate file").setInputFiles({
			name: "acme.pem",
			mimeType: "application/x-pem-file",
			buffer: Buffer.from(certificatePem),
		});
		await page.getByRole("button", { name: "Upload certificate" }).click();
		const certificates = page.getByRole("table", { name: "Certificates of Acme Retail" });
		await certificates.getByRole("row").filter({ hasText: "Acme 2026" }).waitFor();
		const stored = await call(harness.server.base, "GET", `/v1/partners/${partnerId}/certificates`, {
			token: user.token,
		});
		const first = stored.json.data[0];
		await certificates.getByText(first.fingerprint.replace(/^SHA256:/, "")).waitFor();

		// Rollover: the second certificate is active alongside the first until the first is deactivated.
		await page.getByLabel("Certificate name").fill("Acme 2027");
		await page.getByLabel("Certificate file").setInputFiles({
			name: "acme-2027.pem",
			mimeType: "application/x-pem-file",
			buffer: Buffer.from(secondCertificatePem),
		});
		await page.getByRole("button", { name: "Upload certificate" }).click();
		await certificates.getByRole("row").filter({ hasText: "Acme 2027" }).waitFor();
		expect(await certificates.getByText("active", { exact: true }).count()).toBe(2);
		await page.getByRole("button", { name: "Deactivate Acme 2026" }).click();
		await certificates.getByRole("row").filter({ hasText: "Acme 2026" }).getByText("inactive").waitFor();

		// Edit: only the changed fields go out; the API keeps the rest.
		await page.getByLabel("MDN mode").selectOption("sync");
		await page.getByLabel("Sign", { exact: true }).check();
		await page.getByLabel("Signing algorithm").selectOption("SHA384withRSA");
		await page.getByRole("button", { name: "Save changes" }).click();
		await page.getByRole("status").filter({ hasText: "Changes saved." }).waitFor();
		const edited = await call(harness.server.base, "GET", `/v1/partners/${partnerId}`, { token: user.token });
		expect(edited.json.data).toMatchObject({
			name: "Acme Retail",
			mdn_mode: "sync",
			sign: true,
			sign_algorithm: "SHA384withRSA",
			url: receiverUrl,
		});

		// Validate: every check with its status.
		await page.getByRole("button", { name: "Validate configuration" }).click();
		const validation = page.getByRole("heading", { level: 3, name: /Configuration/ });
		await validation.waitFor();
		await page
			.getByText(/as2 id/i)
			.first()
			.waitFor();

		// Test the connection to the loopback receiver: the timeline and its outcome.
		await page.getByLabel("Test", { exact: true }).selectOption("ping");
		await page.getByRole("button", { name: "Run test" }).click();
		await page.getByRole("heading", { level: 3, name: /Test \(ping\)/ }).waitFor();

		// Statistics: a message sent through the API shows in the 7-day chart.
		const sent = await call(harness.server.base, "POST", "/v1/messages", {
			token: user.token,
			body: { partner_id: partnerId, content_type: "text/plain", payload: { content: "hello" } },
		});
		expect(sent.status, sent.text).toBe(202);
		await page.getByRole("button", { name: "7 days" }).click();
		await expect.poll(() => page.getByRole("button", { name: "7 days" }).getAttribute("aria-pressed")).toBe("true");
		const sentCount = page.locator(".stat-row dt", { hasText: "Sent" }).locator("xpath=following-sibling::dd");
		await expect.poll(() => sentCount.textContent()).toBe("1");
		expect(await page.getByRole("table", { name: "Messages per day, last 7 days" }).getByRole("row").count()).toBe(8);
		await axe(page);
		await screenshot(page, "partner-detail");

		// Deactivate, then delete with confirmation.
		await page.getByRole("button", { name: "Deactivate", exact: true }).click();
		await page.getByRole("button", { name: "Activate", exact: true }).waitFor();
		await page.getByRole("button", { name: "Delete partner" }).click();
		const dialog = page.getByRole("dialog", { name: "Delete Acme Retail?" });
		await dialog.waitFor();
		await dialog.getByRole("button", { name: "Delete partner" }).click();
		await page.getByRole("heading", { level: 1, name: "Partners" }).waitFor();
		await page.getByText("No partners yet").waitFor();
		await context.close();
	});

	it("creates a master partner, overrides it in the tenant, shows what is inherited and resets", async () => {
		const user = await registerUser(harness);
		const { context, page } = await harness.newPage();
		await signIn(harness, page, user);
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Partners" }).click();
		await page.getByRole("link", { name: "Master partners" }).click();
		await page.getByRole("heading", { level: 1, name: "Master partners" }).waitFor();
		await page.getByText("No master partners yet").waitFor();
		await axe(page);
		await screenshot(page, "master-partners-empty");

		await page.getByRole("link", { name: "Add a master partner" }).first().click();
		await page.getByRole("heading", { level: 1, name: "Add a master partner" }).waitFor();
		await page.getByLabel("Name", { exact: true }).fill("Globex Wholesale");
		await page.getByLabel("AS2 ID").fill(`GLOBEX-${process.pid}`);
		await page.getByLabel("URL").fill(receiverUrl);
		const profile = page.getByLabel("Compatibility profile");
		await expect.poll(() => profile.locator("option").count()).toBeGreaterThan(2);
		const [profileName] = await profile.selectOption({ index: 2 });
		await page.getByRole("button", { name: "Create master partner" }).click();
		await page.getByRole("heading", { level: 1, name: "Globex Wholesale" }).waitFor();
		// A master partner's certificate serves every tenant.
		await page.getByLabel("Certificate name").fill("Globex 2026");
		await page.getByLabel("Certificate file").setInputFiles({
			name: "globex.pem",
			mimeType: "application/x-pem-file",
			buffer: Buffer.from(certificatePem),
		});
		await page.getByRole("button", { name: "Upload certificate" }).click();
		await page.getByRole("table", { name: "Certificates of Globex Wholesale" }).getByText("Globex 2026").waitFor();
		// The master's own view has no compatibility group: the form shows it from the tenant's inherited view.
		await expect.poll(() => page.getByLabel("Compatibility profile").inputValue()).toBe(profileName);
		await axe(page);
		await screenshot(page, "master-partner");

		// The tenant's view: inherited, every setting marked as coming from the master. The profile
		// list is held until the overrides are saved, as on a slow network: an override of the MDN
		// mode alone must not also override the inherited profile with "None" (a race CI once hit).
		let releaseProfiles = () => {};
		const profilesHeld = new Promise<void>((resolve) => {
			releaseProfiles = resolve;
		});
		// Held, then passed on to the harness's own route (loopback only); never unrouted, since a
		// route removed while its handler holds a request is handled twice (a CI run's rejection).
		await page.route("**/v1/compatibility-profiles", async (route) => {
			await profilesHeld;
			await route.fallback();
		});
		await page.getByRole("link", { name: "View in this tenant" }).click();
		await page.getByRole("heading", { level: 2, name: "Overrides" }).waitFor();
		await page.getByRole("table", { name: "Certificates of Globex Wholesale" }).getByText("Globex 2026").waitFor();
		expect(await page.getByRole("button", { name: "Delete Globex 2026" }).count()).toBe(0);
		await page.getByText("This tenant uses the master partner's settings as they are.").waitFor();
		const mdnMode = page.getByLabel("MDN mode");
		await expect.poll(() => describedText(mdnMode)).toMatch(/Inherited from the master partner/);

		await mdnMode.selectOption("none");
		await page.getByRole("button", { name: "Save overrides" }).click();
		await page.getByRole("status").filter({ hasText: "Overrides saved." }).waitFor();
		releaseProfiles();
		await expect.poll(() => describedText(page.getByLabel("MDN mode"))).toMatch(/Overridden for this tenant/);
		expect(await describedText(page.getByLabel("URL"))).toMatch(/Inherited from the master partner/);
		const overrides = await call(
			harness.server.base,
			"GET",
			`/v1/partners/${new URL(page.url()).pathname.split("/").at(-1)}/overrides`,
			{ token: user.token },
		);
		expect(overrides.json.data.override_settings).toEqual({ mdn_mode: "none" });
		await axe(page);
		await screenshot(page, "partner-inherited");

		await page.getByRole("button", { name: "Reset to master" }).click();
		await page
			.getByRole("dialog", { name: "Drop this tenant's overrides?" })
			.getByRole("button", { name: "Reset to master" })
			.click();
		await page.getByText("This tenant uses the master partner's settings as they are.").waitFor();

		// The list shows where each partner comes from.
		await page.getByRole("link", { name: "← All partners" }).click();
		const row = page.getByRole("table", { name: "Partners" }).getByRole("row").filter({ hasText: "Globex Wholesale" });
		await row.getByText("Inherited", { exact: true }).waitFor();
		await axe(page);
		await screenshot(page, "partners");
		// Filters are the API's: a search that matches nothing leaves an empty page, not the first-use empty state.
		const filters = page.getByRole("form", { name: "Filter partners" });
		const pages = page.getByRole("navigation", { name: "Pages" });
		await filters.getByLabel("Search").fill("no such partner");
		await filters.getByRole("button", { name: "Apply filters" }).click();
		await pages.getByText("No results").waitFor();
		await filters.getByLabel("Search").fill("globex");
		await filters.getByRole("button", { name: "Apply filters" }).click();
		await row.waitFor();
		await filters.getByLabel("Kind").selectOption("tenant");
		await pages.getByText("No results").waitFor();
		expect(await filters.getByLabel("Search").inputValue()).toBe("globex");
		await context.close();
	});

	it("downloads the identity, rolls it over with a PKCS#12 and shows partner certificates' expiry", async () => {
		const user = await registerUser(harness);
		const base = harness.server.base;
		const partner = await call(base, "POST", "/v1/partners", {
			token: user.token,
			body: { name: "Initech", as2_id: `INITECH-${process.pid}`, url: receiverUrl },
		});
		expect(partner.status, partner.text).toBe(201);
		const expired = await call(base, "POST", `/v1/partners/${partner.json.data.id}/certificates`, {
			token: user.token,
			body: { name: "Initech 2001", usage: "both", certificate: testIdentity("expired").certPem },
		});
		expect(expired.status, expired.text).toBe(201);
		const identity = (await call(base, "GET", "/v1/certificates?type=identity", { token: user.token })).json.data[0];

		const { context, page } = await harness.newPage();
		await signIn(harness, page, user);
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Certificates" }).click();
		await page.getByRole("heading", { level: 1, name: "Certificates" }).waitFor();
		const identities = page.getByRole("table", { name: "Identity certificates" });
		await identities.getByText(identity.name).waitFor();

		// The public certificate to give to partners, saved from the page (no URL carries the token).
		const [download] = await Promise.all([
			page.waitForEvent("download"),
			page.getByRole("button", { name: `Download ${identity.name}` }).click(),
		]);
		const saved = await download.path();
		expect(readFileSync(saved, "utf8")).toBe(identity.certificate_pem);

		// Rollover: a wrong PKCS#12 password is shown at the file, then the right one adds a second active identity.
		const alice = testIdentity("alice");
		await page.getByLabel("Identity name").fill("Identity 2027");
		await page.getByLabel("PKCS#12 file").setInputFiles(alice.p12Path);
		await page.getByLabel("Password").fill("not the password");
		await page.getByRole("button", { name: "Upload identity" }).click();
		await expect.poll(() => page.getByLabel("PKCS#12 file").getAttribute("aria-invalid")).toBe("true");
		await page.getByLabel("Password").fill("test-pass");
		await page.getByRole("button", { name: "Upload identity" }).click();
		await identities.getByText("Identity 2027").waitFor();
		expect(await identities.getByText("active", { exact: true }).count()).toBe(2);

		// Partner certificates: the expired one says so, and links to its partner.
		const partnerCertificates = page.getByRole("table", { name: "Partner certificates" });
		const row = partnerCertificates.getByRole("row").filter({ hasText: "Initech 2001" });
		await row.getByText("expired", { exact: true }).waitFor();
		await row.getByRole("link", { name: "Initech" }).waitFor();
		await axe(page);
		await screenshot(page, "certificates");

		// Its partner fails validation on that certificate, and the check names the spec's issue.
		await row.getByRole("link", { name: "Initech" }).click();
		await page.getByRole("heading", { level: 1, name: "Initech" }).waitFor();
		await page.getByRole("button", { name: "Validate configuration" }).click();
		await page
			.getByRole("heading", { level: 3, name: /Configuration/ })
			.getByText("failed")
			.waitFor();
		await page.getByRole("listitem").filter({ hasText: "EXPIRED_CERTIFICATE" }).waitFor();
		await axe(page);
		await context.close();
	});
});

/** The text of the elements a control's aria-describedby names: its hint and error. */
async function describedText(control: Locator): Promise<string> {
	return control.evaluate((element) =>
		(element.getAttribute("aria-describedby") ?? "")
			.split(" ")
			.map((id) => document.getElementById(id)?.textContent ?? "")
			.join(" "),
	);
}
