/**
 * `POST /v1/epcis/validate` streams a document through the validator: a 50 MB one grows the
 * process by less than its size. In a process of its own (vitest.config.ts, MEASURES_MEMORY),
 * and on SQLite only: the store takes no part in a validation (it checks the API key), and the
 * growth measured must be this document's alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
let key: string;
beforeAll(async () => {
	// Enterprise: no request rate to wait for, and a plan size far above the 50 MB document.
	t = createTestApp({ defaultPlan: "enterprise" });
	const owner = await register(t, "Validator");
	key = await createKey(t, owner.token, { scope: "tenant", tenant_id: owner.tenantId, permissions: ["messages:read"] });
});
afterAll(() => t.close());

describe("POST /v1/epcis/validate", () => {
	it("streams a 50 MB document through the validator in bounded memory", async () => {
		const boundary = "----epcis-large";
		const head = `--${boundary}\r\nContent-Disposition: form-data; name="validation_rules"\r\n\r\nschema_compliance,business_rules\r\n--${boundary}\r\nContent-Disposition: form-data; name="document"; filename="large.xml"\r\nContent-Type: application/xml\r\n\r\n`;
		const chunks = largeDocument(50 * 1024 * 1024);
		const encoder = new TextEncoder();
		let events = 0;
		let sent = 0;
		// Sampled as the body is pulled: the request is served without a turn of the event loop for a timer.
		const before = process.memoryUsage().rss;
		let peak = before;
		const body = new ReadableStream<Uint8Array>({
			start(controller) {
				controller.enqueue(encoder.encode(head));
			},
			pull(controller) {
				peak = Math.max(peak, process.memoryUsage().rss);
				const next = chunks.next();
				if (next.done) {
					events = next.value;
					controller.enqueue(encoder.encode(`\r\n--${boundary}--\r\n`));
					controller.close();
					return;
				}
				sent += next.value.byteLength;
				controller.enqueue(next.value);
			},
		});
		const response = await t.app.request("/v1/epcis/validate", {
			method: "POST",
			headers: { authorization: `Bearer ${key}`, "content-type": `multipart/form-data; boundary=${boundary}` },
			body,
			duplex: "half",
		} as RequestInit);
		const json = await response.json();
		expect(sent).toBeGreaterThanOrEqual(50 * 1024 * 1024);
		expect(response.status).toBe(200);
		expect(json).toMatchObject({
			valid: true,
			validation_results: { schema_compliance: "passed", business_rules: "passed" },
			event_count: events,
		});
		// Never held whole: growth stays under the document's 50 MB (about 25 MB streamed, 70 MB buffered).
		expect(peak - before).toBeLessThan(45 * 1024 * 1024);
	}, 240_000);
});

/** A valid EPCIS 2.0 document of about `bytes` bytes, in 64 KB chunks; returns the event count. */
function* largeDocument(bytes: number): Generator<Uint8Array, number> {
	const encoder = new TextEncoder();
	let pending = `<?xml version="1.0" encoding="UTF-8"?>\n<epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:2" schemaVersion="2.0" creationDate="2023-03-01T12:00:00.000Z"><EPCISBody><EventList>`;
	let size = 0;
	let n = 0;
	while (size + pending.length < bytes) {
		const serial = String(100000 + n);
		pending += `<ObjectEvent><eventTime>2023-02-01T09:00:00.000Z</eventTime><eventTimeZoneOffset>+00:00</eventTimeZoneOffset><epcList><epc>urn:epc:id:sgtin:0614141.107346.${serial}</epc></epcList><action>OBSERVE</action><bizStep>urn:epcglobal:cbv:bizstep:shipping</bizStep><disposition>urn:epcglobal:cbv:disp:in_transit</disposition><readPoint><id>urn:epc:id:sgln:0614141.00777.0</id></readPoint></ObjectEvent>`;
		n++;
		if (pending.length >= 64 * 1024) {
			const chunk = encoder.encode(pending);
			size += chunk.byteLength;
			yield chunk;
			pending = "";
		}
	}
	yield encoder.encode(`${pending}</EventList></EPCISBody></epcis:EPCISDocument>\n`);
	return n;
}
