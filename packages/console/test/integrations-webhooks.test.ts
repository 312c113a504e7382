/**
 * The console's webhook screens in headless Chromium against the built server (issue #19): an
 * endpoint (secret shown once), a signed test delivery to a loopback receiver this file starts
 * (AS2_ALLOW_PRIVATE_TARGETS and AS2_ALLOW_HTTP let the server deliver to it), the deliveries
 * log with response bodies, redeliver, edit, secret rotation and stats.
 */
import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
	axe,
	type ConsoleHarness,
	registerUser,
	screenshot,
	signIn,
	startConsole,
	UI_TIMEOUT_MS,
} from "./browser-harness.ts";
import { expectFieldError } from "./integrations-assertions.ts";

describe("console webhooks in Chromium", () => {
	let harness: ConsoleHarness;
	beforeAll(async () => {
		harness = await startConsole({ env: { AS2_ALLOW_PRIVATE_TARGETS: "1", AS2_ALLOW_HTTP: "1" } });
	});
	afterAll(async () => {
		await harness?.stop();
	});

	it("adds an endpoint (secret shown once), test-delivers signed, logs responses, redelivers, edits, rotates, deactivates, deletes", async () => {
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
			await expect.poll(() => receiver.received.length, { timeout: UI_TIMEOUT_MS }).toBeGreaterThan(before);
			const last = receiver.received.at(-1)!;
			expect(last.headers["x-signature"]).toBe(createHmac("sha256", newSecret).update(last.body).digest("hex"));
			await axe(page);

			// Deactivated, it says so; activated again, it is active.
			await page.getByRole("button", { name: "Deactivate" }).click();
			await page.getByRole("definition").getByText("inactive").waitFor();
			await page.getByRole("button", { name: "Activate", exact: true }).click();
			await page.getByRole("definition").getByText("active", { exact: true }).waitFor();

			await page.getByRole("link", { name: "All webhook endpoints" }).click();
			const listed = page.getByRole("row").filter({ hasText: receiver.url });
			const rate = listed.getByRole("cell").nth(4);
			await expect
				.poll(async () => Number.parseFloat((await rate.textContent()) ?? ""), { timeout: UI_TIMEOUT_MS })
				.toBeLessThan(100);
			await axe(page);
			await screenshot(page, "webhooks");

			await listed.getByRole("link").click();
			await page.getByRole("button", { name: "Delete" }).click();
			await page
				.getByRole("dialog", { name: "Delete this webhook endpoint?" })
				.getByRole("button", { name: "Delete endpoint" })
				.click();
			await page.getByRole("heading", { level: 1, name: "Webhooks" }).waitFor();
			await page.getByText("No webhook endpoints yet").waitFor();
			await context.close();
		} finally {
			await receiver.stop();
		}
	});
});

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
