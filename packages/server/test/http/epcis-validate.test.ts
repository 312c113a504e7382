import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey, createTestApp, register, type TestApp } from "../helpers/test-app.ts";

/** The EPCIS test corpus of @as2kit/core and the verdicts its manifest expects. */
const CORPUS = fileURLToPath(new URL("../../../as2-core/test/fixtures/epcis/", import.meta.url));
const MANIFEST = JSON.parse(readFileSync(`${CORPUS}manifest.json`, "utf8")) as {
	now: string;
	documents: Record<string, { results: Record<string, string>; errors: string[]; warnings: string[] }>;
};
const FILES = readdirSync(CORPUS).filter((f) => f.endsWith(".xml"));
const read = (name: string) => readFileSync(`${CORPUS}${name}`, "utf8");

let t: TestApp;
let key: string;
let partnersOnly: string;
beforeAll(async () => {
	// Enterprise: no request rate to wait for, and a plan size far above the 50 MB document.
	t = createTestApp({ defaultPlan: "enterprise" });
	// The manifest's verdicts hold at its "now" (eventTime-in-the-future checks).
	t.clock.advance((Date.parse(MANIFEST.now) - t.clock.now().getTime()) / 1000);
	const owner = await register(t, "Validator");
	key = await createKey(t, owner.token, { scope: "tenant", tenant_id: owner.tenantId, permissions: ["messages:read"] });
	partnersOnly = await createKey(t, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		permissions: ["partners:read"],
	});
});
afterAll(() => t.close());

const validate = (body: unknown, token = key) => t.call("POST", "/v1/epcis/validate", { token, body });

/** A multipart body; parts are [name, value, filename?] in order. */
function multipart(parts: [string, string, string?][]): { body: string; headers: Record<string, string> } {
	const boundary = "----epcis-test-boundary";
	const body = parts
		.map(([name, value, filename]) => {
			const file = filename ? `; filename="${filename}"\r\nContent-Type: application/xml` : "";
			return `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file}\r\n\r\n${value}\r\n`;
		})
		.join("");
	return {
		body: `${body}--${boundary}--\r\n`,
		headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
	};
}

const codes = (issues: { rule: string; code: string }[]) =>
	[...new Set(issues.map((i) => `${i.rule}:${i.code}`))].sort();

describe("POST /v1/epcis/validate", () => {
	it("gives every corpus document the manifest's verdict, per rule, with its errors and warnings", async () => {
		expect(FILES.length).toBeGreaterThan(30);
		for (const file of FILES) {
			const expected = MANIFEST.documents[file]!;
			const response = await validate({ document: read(file) });
			expect(response.status, file).toBe(200);
			expect(response.json.validation_results, file).toEqual(expected.results);
			expect(response.json.valid, file).toBe(Object.values(expected.results).every((r) => r === "passed"));
			expect(codes(response.json.errors), file).toEqual(expected.errors);
			expect(codes(response.json.warnings), file).toEqual(expected.warnings);
		}
	});

	it("answers the spec's top-level object, each issue in snake_case with its location", async () => {
		const response = await validate({
			document: read("12-invalid-action.xml"),
			validation_rules: ["schema_compliance"],
		});
		expect(Object.keys(response.json).sort()).toEqual(
			["epcis_version", "errors", "event_count", "valid", "validation_results", "warnings"].sort(),
		);
		expect(response.json).toMatchObject({
			valid: false,
			validation_results: { schema_compliance: "failed" },
			epcis_version: "1.2",
			warnings: [],
		});
		const [error] = response.json.errors;
		expect(Object.keys(error).sort()).toEqual(["code", "column", "event_index", "line", "message", "path", "rule"]);
		expect(error).toMatchObject({ rule: "schema_compliance", event_index: 0 });
		expect(error.line).toBeGreaterThan(1);
		expect(error.path).toMatch(/ObjectEvent/);
	});

	it("runs only the rules asked for, and all three by default", async () => {
		const document = read("12-dscsa-incomplete.xml");
		const some = await validate({ document, validation_rules: ["schema_compliance", "business_rules"] });
		expect(some.json.validation_results).toEqual({ schema_compliance: "passed", business_rules: "passed" });
		expect(some.json.valid).toBe(true);
		expect(some.json.errors).toEqual([]);
		const all = await validate({ document });
		expect(Object.keys(all.json.validation_results).sort()).toEqual([
			"business_rules",
			"dscsa_compliance",
			"schema_compliance",
		]);
		expect(all.json.valid).toBe(false);
	});

	it("refuses an unknown rule name with 422 EPCIS_UNKNOWN_RULE on validation_rules", async () => {
		const response = await validate({
			document: read("20-all-event-types.xml"),
			validation_rules: ["schema", "business_rules"],
		});
		expect(response.status).toBe(422);
		expect(response.json.error.code).toBe("EPCIS_UNKNOWN_RULE");
		expect(response.json.errors.validation_rules[0]).toMatch(/schema/);
		const notAList = await validate({ document: read("20-all-event-types.xml"), validation_rules: 5 });
		expect(notAList.status).toBe(422);
		expect(notAList.json.errors.validation_rules).toEqual(["must be a list of rule names"]);
	});

	it("answers malformed XML with valid false and a located parse error, never an error status", async () => {
		const broken = `<?xml version="1.0"?>\n<epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:2" schemaVersion="2.0" creationDate="2024-01-01T00:00:00Z">\n<EPCISBody><EventList><ObjectEvent></EventList>`;
		const response = await validate({ document: broken });
		expect(response.status).toBe(200);
		expect(response.json.valid).toBe(false);
		expect(response.json.validation_results).toEqual({
			schema_compliance: "failed",
			business_rules: "failed",
			dscsa_compliance: "failed",
		});
		const parse = response.json.errors.find((e: { rule: string }) => e.rule === "parse");
		expect(parse).toMatchObject({ rule: "parse", line: 3 });
		expect(parse.column).toBeGreaterThan(1);
		for (const document of [
			"not xml at all",
			"<!DOCTYPE x [<!ENTITY a 'b'>]><x>&a;</x>",
			"<order><id>1</id></order>",
		]) {
			const other = await validate({ document });
			expect(other.status, document).toBe(200);
			expect(other.json.valid, document).toBe(false);
			expect(other.json.errors[0].rule, document).toBe("parse");
		}
	});

	it("checks the body: a missing or empty document is 422, a JSON body over 16 MB is 413", async () => {
		expect((await validate({})).json.errors.document).toEqual(["is required"]);
		expect((await validate({ document: "" })).status).toBe(422);
		const big = await validate({ document: "x".repeat(16 * 1024 * 1024 + 1) });
		expect(big.status).toBe(413);
		expect(big.json.error.code).toBe("REQUEST_TOO_LARGE");
	});

	it("needs messages:read", async () => {
		const response = await validate({ document: read("20-all-event-types.xml") }, partnersOnly);
		expect(response.status).toBe(403);
		expect(response.json.error.code).toBe("insufficient_scope");
	});
});

describe("POST /v1/epcis/validate as multipart/form-data", () => {
	const post = (form: { body: string; headers: Record<string, string> }) =>
		t.call("POST", "/v1/epcis/validate", { token: key, ...form });

	it("validates a document part as the JSON form does, rules before or after it", async () => {
		for (const file of ["12-business-vocabulary.xml", "20-invalid-decimal.xml", "20-dscsa-complete.xml"]) {
			const document = read(file);
			const rules = ["business_rules", "dscsa_compliance"];
			const json = (await validate({ document, validation_rules: rules })).json;
			const before = await post(
				multipart([
					["validation_rules[]", "business_rules"],
					["validation_rules[]", "dscsa_compliance"],
					["document", document, file],
				]),
			);
			expect(before.status, file).toBe(200);
			expect(before.json, file).toEqual(json);
			const after = await post(
				multipart([
					["document", document, file],
					["validation_rules", "business_rules,dscsa_compliance"],
				]),
			);
			expect(after.json, file).toEqual(json);
			const all = await post(multipart([["document", document]]));
			expect(all.json, file).toEqual((await validate({ document })).json);
		}
	});

	it("refuses a form without a document, or with an unknown rule wherever it comes", async () => {
		const missing = await post(multipart([["validation_rules", "business_rules"]]));
		expect(missing.status).toBe(422);
		expect(missing.json.errors.document).toEqual(["is required"]);
		const after = await post(
			multipart([
				["document", read("20-all-event-types.xml"), "d.xml"],
				["validation_rules", "nope"],
			]),
		);
		expect(after.status).toBe(422);
		expect(after.json.error.code).toBe("EPCIS_UNKNOWN_RULE");
	});
});
