import { describe, expect, it } from "vitest";
import { type EpcisInput, validateEpcis } from "../../src/epcis/index.ts";
import { isAs2Error } from "../../src/errors/index.ts";
import { errorCode } from "../helpers/error-code.ts";
import { readCorpus } from "./corpus.ts";

const NOW = new Date("2024-01-01T00:00:00Z");

function streamOf(text: string, size = 7): ReadableStream<Uint8Array> {
	const bytes = new TextEncoder().encode(text);
	let at = 0;
	return new ReadableStream({
		pull(controller) {
			if (at >= bytes.length) controller.close();
			else {
				controller.enqueue(bytes.subarray(at, at + size));
				at += size;
			}
		},
	});
}

describe("validateEpcis", () => {
	it("runs all three rules by default; results hold only the rules asked for", async () => {
		const xml = readCorpus("12-object-event.xml");
		expect(Object.keys((await validateEpcis(xml, { now: NOW })).results).sort()).toEqual([
			"business_rules",
			"dscsa_compliance",
			"schema_compliance",
		]);
		const one = await validateEpcis(xml, { rules: ["business_rules"], now: NOW });
		expect(one.results).toEqual({ business_rules: "passed" });
		expect(one.valid).toBe(true);
		expect(one.errors).toEqual([]);
	});

	it("an unknown rule name is As2Error EPCIS_UNKNOWN_RULE (a 422)", async () => {
		const failure = validateEpcis("<x/>", { rules: ["schema_compliance", "gdpr"] });
		expect(await errorCode(failure)).toBe("EPCIS_UNKNOWN_RULE");
		const error = await failure.catch((e: unknown) => e);
		expect(isAs2Error(error) && error.status).toBe(422);
		expect(isAs2Error(error) && error.fieldErrors?.validation_rules?.[0]).toMatch(/gdpr/);
	});

	it("string, bytes and a stream split anywhere give the same result", async () => {
		const xml = readCorpus("20-dscsa-incomplete.xml");
		const inputs: EpcisInput[] = [xml, new TextEncoder().encode(xml), streamOf(xml, 1), streamOf(xml, 4093)];
		const results = await Promise.all(inputs.map((input) => validateEpcis(input, { now: NOW })));
		for (const r of results) expect(r).toEqual(results[0]);
	});

	it("CRLF documents give the same verdicts and lines", async () => {
		const xml = readCorpus("12-invalid-element-order.xml");
		const lf = await validateEpcis(xml, { now: NOW });
		const crlf = await validateEpcis(xml.replaceAll("\n", "\r\n"), { now: NOW });
		expect(crlf).toEqual(lf);
	});

	it("errors carry the rule, the event index, a path, line and column", async () => {
		const result = await validateEpcis(readCorpus("12-invalid-element-order.xml"), { rules: ["schema_compliance"] });
		expect(result.errors).toEqual([
			{
				rule: "schema_compliance",
				code: "SCHEMA_UNEXPECTED_ELEMENT",
				message: expect.stringContaining("action"),
				eventIndex: 0,
				path: "/epcis:EPCISDocument/EPCISBody/EventList/ObjectEvent[1]/action",
				line: 9,
				column: 9,
			},
		]);
		const business = await validateEpcis(readCorpus("12-business-times.xml"), { rules: ["business_rules"], now: NOW });
		const record = business.errors.find((e) => e.code === "BR_RECORD_TIME_BEFORE_EVENT_TIME")!;
		expect(record).toMatchObject({ eventIndex: 1, line: 22, column: 7 });
	});

	it("eventTime in the future is judged against the injected now", async () => {
		const xml = readCorpus("12-business-times.xml");
		const before = await validateEpcis(xml, { rules: ["business_rules"], now: NOW });
		expect(before.errors.map((e) => e.code)).toContain("BR_EVENT_TIME_IN_FUTURE");
		const after = await validateEpcis(xml, { rules: ["business_rules"], now: new Date("2100-01-01T00:00:00Z") });
		expect(after.errors.map((e) => e.code)).not.toContain("BR_EVENT_TIME_IN_FUTURE");
	});

	it("warnings never make a rule fail", async () => {
		const result = await validateEpcis(readCorpus("12-quantity-event.xml"), { rules: ["business_rules"], now: NOW });
		expect(result.warnings.map((w) => w.code)).toEqual(["BR_DEPRECATED_EVENT"]);
		expect(result.results.business_rules).toBe("passed");
		expect(result.valid).toBe(true);
	});

	it("a parse error fails every requested rule and is the one issue of rule 'parse'", async () => {
		const result = await validateEpcis(readCorpus("12-object-event.xml").slice(0, 400), {
			rules: ["schema_compliance", "dscsa_compliance"],
		});
		expect(result.results).toEqual({ schema_compliance: "failed", dscsa_compliance: "failed" });
		expect(result.errors.filter((e) => e.rule === "parse")).toHaveLength(1);
		expect(result.version).toBe("1.2");
	});

	it("a failing input stream surfaces as an As2Error with the stream's error as cause", async () => {
		const broken = new ReadableStream<Uint8Array>({
			start(controller) {
				controller.enqueue(new TextEncoder().encode("<epcis:EPCISDocument"));
				controller.error(new Error("connection reset"));
			},
		});
		const error = await validateEpcis(broken).catch((e: unknown) => e);
		expect(isAs2Error(error) && error.code).toBe("INTERNAL_ERROR");
		expect((error as Error).cause).toMatchObject({ message: "connection reset" });
	});

	it("caps the issues listed at maxErrors and says how many were left out", async () => {
		const event = `<ObjectEvent><eventTime>2020-01-01T00:00:00Z</eventTime><eventTimeZoneOffset>+00:00</eventTimeZoneOffset><epcList/><action>add</action></ObjectEvent>`;
		const xml = `<epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:1" schemaVersion="1.2" creationDate="2020-01-01T00:00:00Z"><EPCISBody><EventList>${event.repeat(50)}</EventList></EPCISBody></epcis:EPCISDocument>`;
		const result = await validateEpcis(xml, { rules: ["schema_compliance"], limits: { maxErrors: 10 } });
		expect(result.errors).toHaveLength(10);
		expect(result.warnings.at(-1)).toMatchObject({
			code: "EPCIS_ISSUES_TRUNCATED",
			message: expect.stringContaining("40 more"),
		});
		expect(result.eventCount).toBe(50);
	});
});
