/**
 * The console's EPCIS screen in headless Chromium against the built server (issue #19):
 * validate a pasted and an uploaded document (errors with rule, event index and path), and
 * query the events of a received document with SimpleEventQuery parameters. The events table
 * follows the index by itself while it is empty, and "Run query" always asks the server again.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axe, type ConsoleHarness, call, registerUser, screenshot, signIn, startConsole } from "./browser-harness.ts";
import { expectFieldError } from "./integrations-assertions.ts";

const EPCIS_FIXTURES = fileURLToPath(new URL("../../as2-core/test/fixtures/epcis/", import.meta.url));
/** Generous: the index job runs shortly after the message is stored, on a loaded machine too. */
const INDEXED_WITHIN_MS = 20_000;
/** Documents received so far: each gets its own Message-ID. */
let documentsSent = 0;

describe("console EPCIS in Chromium", () => {
	let harness: ConsoleHarness;
	beforeAll(async () => {
		// The partner's URL is on loopback (never contacted: no MDN is asked for).
		harness = await startConsole({ env: { AS2_ALLOW_PRIVATE_TARGETS: "1", AS2_ALLOW_HTTP: "1" } });
	});
	afterAll(async () => {
		await harness?.stop();
	});

	it("validates an EPCIS document pasted and uploaded, errors located, and queries events with SimpleEventQuery parameters", async () => {
		const user = await registerUser(harness);
		await receiveEpcisDocument(harness.server.base, user, "12-object-event.xml");
		// Opened once the index job has run (two events), so the rows below are there at once
		// (the next test opens the screen before the document arrives).
		await eventsIndexed(harness.server.base, user, 2);
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

	it("shows events indexed after the screen opened, and asks again when the same query is run", async () => {
		const user = await registerUser(harness);
		const { context, page } = await harness.newPage();
		const queries: string[] = [];
		page.on("request", (request) => {
			if (new URL(request.url()).pathname === "/v1/epcis/query") queries.push(request.url());
		});
		await signIn(harness, page, user);
		await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "EPCIS" }).click();
		await page.getByText("No EPCIS events yet").waitFor();

		// The document arrives while the screen is open: its events appear without any action.
		await receiveEpcisDocument(harness.server.base, user, "12-object-event.xml");
		const events = page.getByRole("table", { name: "EPCIS events" });
		await expect.poll(() => events.getByRole("row").count(), { timeout: INDEXED_WITHIN_MS }).toBe(3);

		// Once events are shown the table stays as it is until the query is run; running the
		// same (empty) query again asks the server again.
		const before = queries.length;
		await page.getByRole("form", { name: "Query events" }).getByRole("button", { name: "Run query" }).click();
		await expect.poll(() => queries.length).toBe(before + 1);
		await expect.poll(() => events.getByRole("row").count()).toBe(3);
		await context.close();
	});
});

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
			"message-id": `<console-epcis-${process.pid}-${++documentsSent}@peer.example>`,
			"content-type": "application/xml",
		},
		body: readFileSync(`${EPCIS_FIXTURES}${fixture}`),
		signal: AbortSignal.timeout(INDEXED_WITHIN_MS),
	});
	expect(received.status, await received.text()).toBe(200);
}

/** Resolves once `POST /v1/epcis/query` answers `count` events; fails after INDEXED_WITHIN_MS. */
async function eventsIndexed(base: string, user: { token: string }, count: number): Promise<void> {
	const deadline = Date.now() + INDEXED_WITHIN_MS;
	for (;;) {
		const answer = await call(base, "POST", "/v1/epcis/query", {
			token: user.token,
			body: { query_type: "SimpleEventQuery", parameters: {} },
		});
		expect(answer.status, answer.text).toBe(200);
		if (answer.json.data.length >= count || Date.now() > deadline) {
			expect(answer.json.data).toHaveLength(count);
			return;
		}
		// Once a second: under the plan's refill (100 requests a minute), the page's own requests keep their budget.
		await new Promise((resolve) => setTimeout(resolve, 1000));
	}
}
