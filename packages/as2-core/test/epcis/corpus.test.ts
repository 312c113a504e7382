import { describe, expect, it } from "vitest";
import { validateEpcis } from "../../src/epcis/index.ts";
import { CORPUS_FILES, MANIFEST, readCorpus } from "./corpus.ts";

describe("epcis corpus - expected result per rule (fixtures/epcis/manifest.json)", () => {
	it("has an expectation for every document and a document for every expectation", () => {
		expect(Object.keys(MANIFEST.documents).sort()).toEqual(CORPUS_FILES);
	});

	it("covers 1.2 and 2.0, every event type, valid and invalid, DSCSA complete and incomplete", () => {
		const docs = Object.entries(MANIFEST.documents);
		expect(docs.some(([, d]) => d.version === "1.2")).toBe(true);
		expect(docs.some(([, d]) => d.version === "2.0")).toBe(true);
		const all = CORPUS_FILES.map(readCorpus).join("\n");
		for (const type of [
			"ObjectEvent",
			"AggregationEvent",
			"TransformationEvent",
			"TransactionEvent",
			"AssociationEvent",
			"QuantityEvent",
		]) {
			expect(all).toContain(`<${type}>`);
		}
		for (const rule of ["schema_compliance", "business_rules", "dscsa_compliance"] as const) {
			expect(docs.some(([, d]) => d.results[rule] === "passed")).toBe(true);
			expect(docs.some(([, d]) => d.results[rule] === "failed")).toBe(true);
		}
	});

	for (const file of CORPUS_FILES) {
		it(file, async () => {
			const expected = MANIFEST.documents[file]!;
			const result = await validateEpcis(readCorpus(file), { now: new Date(MANIFEST.now) });
			expect(result.version).toBe(expected.version);
			expect(result.eventCount).toBe(expected.eventCount);
			expect(result.results).toEqual(expected.results);
			expect([...new Set(result.errors.map((e) => `${e.rule}:${e.code}`))].sort()).toEqual(expected.errors);
			expect([...new Set(result.warnings.map((e) => `${e.rule}:${e.code}`))].sort()).toEqual(expected.warnings);
			expect(result.valid).toBe(Object.values(expected.results).every((r) => r === "passed"));
			for (const issue of [...result.errors, ...result.warnings]) {
				expect(issue.message.length).toBeGreaterThan(0);
				if (issue.rule === "schema_compliance") expect(issue.line).toBeGreaterThan(0);
			}
		});
	}
});
