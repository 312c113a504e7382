/**
 * The console's integration screens in headless Chromium against the built server (issue #19):
 * API keys (create, shown once with a copy button, revoke), webhook endpoints (secret shown
 * once, a test delivery to a loopback receiver this file starts, the deliveries log,
 * redeliver, stats) and EPCIS (validate with located errors, query events).
 */
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { Locator } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axe, type ConsoleHarness, call, registerUser, screenshot, signIn, startConsole } from "./browser-harness.ts";

const EPCIS_FIXTURES = fileURLToPath(new URL("../../as2-core/test/fixtures/epcis/", import.meta.url));
/** Generous: the index job runs shortly after the message is stored, on a loaded machine too. */
const INDEXED_WITHIN_MS = 20_000;

describe("console integration screens in Chromium", () => {
	let harness: ConsoleHarness;
	beforeAll(async () => {
		harness = await startConsole({ env: { AS2_ALLOW_PRIVATE_TARGETS: "1", AS2_ALLOW_HTTP: "1" } });
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

	it("adds a webhook endpoint (secret shown once), sends a signed test delivery, shows its response and redelivers", async () => {
		const receiver = await startReceiver();
		try {
			const user = await registerUser(harness);
			const { context, page } = await harness.newPage();
			await signIn(harness, page, user);
			await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Webhooks" }).click();
			await page.getByRole("heading", { level: 1, name: "Webhooks" }).waitFor();
			await page.getByText("No webhook endpoints yet").waitFor();
			await axe(page);

			await page.getByRole("button", { name: "Add an endpoint" }).click();
			const form = page.getByRole("form", { name: "Add a webhook endpoint" });
			// Another scheme: the API names url, and the error sits under that field.
			await form.getByLabel("URL").fill("ftp://127.0.0.1/hook");
			await form.getByRole("button", { name: "Add endpoint" }).click();
			await expectFieldError(form.getByLabel("URL"), /http/i);
			await axe(page);

			await form.getByLabel("URL").fill(receiver.url);
			await form.getByRole("group", { name: "Events" }).getByLabel("message.failed").check();
			await form.getByRole("button", { name: "Add endpoint" }).click();
			const secretBox = page.getByRole("region", { name: `Signing secret of ${receiver.url}` });
			await secretBox.waitFor();
			const secret = (await secretBox.locator("code").textContent()) ?? "";
			expect(secret).toMatch(/^whsec_/);
			expect(page.url()).not.toContain(secret);
			await page.getByRole("row").filter({ hasText: "message.*, message.failed" }).waitFor();

			await page.getByRole("link", { name: `Send a test event to ${receiver.url}` }).click();
			await page.getByRole("heading", { level: 1, name: "Webhook endpoint" }).waitFor();
			expect(await page.content()).not.toContain(secret);
			await page.getByText("Nothing delivered yet").waitFor();
			await page.getByRole("button", { name: "Send test event" }).click();
			await page.getByRole("status").filter({ hasText: "Test event delivered: HTTP 200" }).waitFor();
			// A real delivery, signed with the secret shown once (interface spec, Signature).
			expect(receiver.received).toHaveLength(1);
			const [delivered] = receiver.received;
			expect(JSON.parse(delivered!.body)).toMatchObject({ event: "webhook.test" });
			expect(delivered!.headers["x-signature"]).toBe(
				createHmac("sha256", secret).update(delivered!.body).digest("hex"),
			);

			const row = page.getByRole("row").filter({ hasText: "webhook.test" });
			await row.getByRole("cell").nth(1).getByText("succeeded").waitFor();
			await row.getByText("1 attempt").click();
			await row.getByText("thanks").waitFor();
			await axe(page);
			await screenshot(page, "webhook-endpoint");

			// The receiver now fails: a redelivery's attempt shows the status and body it answered.
			receiver.answer.status = 503;
			receiver.answer.body = "down for maintenance";
			await row.getByRole("button", { name: /^Redeliver webhook\.test/ }).click();
			await row.getByText("Attempt 2").waitFor({ timeout: 30_000 });
			await row.getByText("down for maintenance").waitFor();
			expect(receiver.received.length).toBeGreaterThanOrEqual(2);
			await axe(page);

			// Edit the subscriptions; rotate the secret: the next delivery is signed with the new one, shown once.
			await page.getByRole("button", { name: "Edit" }).click();
			const edit = page.getByRole("form", { name: "Edit the endpoint" });
			await edit.getByRole("group", { name: "Events" }).getByLabel("message.failed").uncheck();
			await edit.getByRole("button", { name: "Save changes" }).click();
			await edit.waitFor({ state: "detached" });
			await page
				.getByRole("definition")
				.filter({ hasText: /^message\.\*$/ })
				.waitFor();
			await page.getByRole("button", { name: "Rotate secret" }).click();
			await page
				.getByRole("dialog", { name: "Rotate the signing secret?" })
				.getByRole("button", { name: "Rotate secret" })
				.click();
			const rotated = page.getByRole("region", { name: "New signing secret" });
			const newSecret = (await rotated.locator("code").textContent()) ?? "";
			expect(newSecret).toMatch(/^whsec_[0-9a-f]{64}$/);
			receiver.answer.status = 200;
			const before = receiver.received.length;
			await page.getByRole("button", { name: "Send test event" }).click();
			await expect.poll(() => receiver.received.length).toBeGreaterThan(before);
			const last = receiver.received.at(-1)!;
			expect(last.headers["x-signature"]).toBe(createHmac("sha256", newSecret).update(last.body).digest("hex"));
			await axe(page);

			await page.getByRole("link", { name: "All webhook endpoints" }).click();
			const listed = page.getByRole("row").filter({ hasText: receiver.url });
			const rate = listed.getByRole("cell").nth(4);
			await expect.poll(async () => Number.parseFloat((await rate.textContent()) ?? "")).toBeLessThan(100);
			await axe(page);
			await screenshot(page, "webhooks");
			await context.close();
		} finally {
			await receiver.stop();
		}
	});

	it("validates an EPCIS document pasted and uploaded, errors located, and queries events with SimpleEventQuery parameters", async () => {
		const user = await registerUser(harness);
		await receiveEpcisDocument(harness.server.base, user, "12-object-event.xml");
		const { context, page } = await harness.newPage();
		await signIn(harness, page, user);
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "EPCIS" }).click();
		await page.getByRole("heading", { level: 1, name: "EPCIS" }).waitFor();
		const validate = page.getByRole("form", { name: "Validate a document" });

		// Nothing pasted: the API names document, and the error sits under that field.
		await validate.getByRole("button", { name: "Validate" }).click();
		await expectFieldError(validate.getByLabel("Document", { exact: true }), /must not be empty/);

		// An action in lower case: one schema error, located by event index and path.
		await validate
			.getByLabel("Document", { exact: true })
			.fill(readFileSync(`${EPCIS_FIXTURES}12-invalid-action.xml`, "utf8"));
		await validate.getByRole("group", { name: "Rules" }).getByLabel("DSCSA").uncheck();
		await validate.getByRole("button", { name: "Validate" }).click();
		await page.getByRole("heading", { name: "The document is not valid: 1 error" }).waitFor();
		const error = page.getByRole("table", { name: "Validation errors" }).getByRole("row").nth(1);
		expect(await error.getByRole("cell").allTextContents()).toEqual([
			"Schema (GS1 XSD)",
			"SCHEMA_INVALID_VALUE",
			expect.stringContaining("observe"),
			"0",
			expect.stringMatching(/ObjectEvent(\[1\])?\/action$/),
			expect.stringMatching(/^12:\d+$/),
		]);
		await axe(page);
		await screenshot(page, "epcis-validation");

		// A file is streamed as multipart instead of the pasted text.
		await validate.getByLabel("Or upload a file").setInputFiles(`${EPCIS_FIXTURES}12-object-event.xml`);
		await validate.getByRole("button", { name: "Validate" }).click();
		await page.getByRole("heading", { name: "The document is valid" }).waitFor();

		// The received document's events, then only the one whose bizStep is receiving.
		const events = page.getByRole("table", { name: "EPCIS events" });
		await expect.poll(() => events.getByRole("row").count(), { timeout: INDEXED_WITHIN_MS }).toBe(3);
		const query = page.getByRole("form", { name: "Query events" });
		await query.getByLabel("Business step (EQ_bizStep)").fill("receiving");
		await query.getByRole("button", { name: "Run query" }).click();
		await expect.poll(() => events.getByRole("row").count()).toBe(2);
		await events.getByText("urn:epc:id:sgtin:0614141.107346.2018").waitFor();
		await axe(page);
		await screenshot(page, "epcis");

		// A * before the last field is a QueryParameterException naming MATCH_anyEPC.
		await query.getByLabel("Any EPC (MATCH_anyEPC)").fill("urn:epc:id:sgtin:*.107346.2018");
		await query.getByRole("button", { name: "Run query" }).click();
		await expectFieldError(query.getByLabel("Any EPC (MATCH_anyEPC)"), /\S/);
		await axe(page);
		await context.close();
	});
});

/** The API's error for a field is tied to its control: aria-invalid, and the last aria-describedby. */
async function expectFieldError(control: Locator, message: RegExp): Promise<void> {
	await expect.poll(() => control.getAttribute("aria-invalid")).toBe("true");
	const describedBy = (await control.getAttribute("aria-describedby")) ?? "";
	const errorId = describedBy.split(" ").at(-1);
	expect(await control.page().locator(`[id="${errorId}"]`).textContent()).toMatch(message);
}

/** A partner of the user's tenant sends an EPCIS document as a plain AS2 message (indexed shortly after). */
async function receiveEpcisDocument(
	base: string,
	user: { token: string; tenantId: string },
	fixture: string,
): Promise<void> {
	const tenant = await call(base, "GET", `/v1/tenants/${user.tenantId}`, { token: user.token });
	const peer = `EPCIS-PEER-${process.pid}`;
	const partner = await call(base, "POST", "/v1/partners", {
		token: user.token,
		body: { name: "EPCIS Peer", as2_id: peer, url: "http://127.0.0.1:9/as2", sign: false, encrypt: false },
	});
	expect(partner.status, partner.text).toBe(201);
	const received = await fetch(`${base}/as2/receive`, {
		method: "POST",
		headers: {
			"as2-to": tenant.json.data.as2_id,
			"as2-from": peer,
			"as2-version": "1.2",
			"message-id": `<console-epcis-${process.pid}@peer.example>`,
			"content-type": "application/xml",
		},
		body: readFileSync(`${EPCIS_FIXTURES}${fixture}`),
		signal: AbortSignal.timeout(INDEXED_WITHIN_MS),
	});
	expect(received.status, await received.text()).toBe(200);
}

/** A webhook receiver on loopback: records each request, answers what the test sets. */
async function startReceiver() {
	const received: { headers: IncomingHttpHeaders; body: string }[] = [];
	const answer = { status: 200, body: "thanks" };
	const server = createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on("data", (chunk: Buffer) => chunks.push(chunk));
		request.on("end", () => {
			received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
			response.writeHead(answer.status, { "content-type": "text/plain" }).end(answer.body);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/as2kit-events`,
		received,
		answer,
		stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
