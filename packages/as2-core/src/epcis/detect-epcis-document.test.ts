import { describe, expect, it } from "vitest";
import { detectEpcisDocument } from "./detect-epcis-document.ts";

describe("detectEpcisDocument", () => {
	it("finds the root and its namespace past BOM, declaration, comments and PIs, any prefix", () => {
		const prefix = `\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!-- generated -->\n<?pi x?>\n<e:EPCISDocument schemaVersion="2.0" xmlns:e="urn:epcglobal:epcis:xsd:2" creationDate="2020-01-01T00:00:00Z">`;
		expect(detectEpcisDocument(prefix)).toEqual({ version: "2.0", root: "EPCISDocument" });
		expect(detectEpcisDocument(new TextEncoder().encode(prefix))).toEqual({ version: "2.0", root: "EPCISDocument" });
		expect(detectEpcisDocument(`<EPCISDocument xmlns="urn:epcglobal:epcis:xsd:1">`)).toEqual({
			version: "1.2",
			root: "EPCISDocument",
		});
		expect(detectEpcisDocument(`<q:EPCISQueryDocument xmlns:q='urn:epcglobal:epcis-query:xsd:1'><EPCISBody>`)).toEqual({
			version: "1.2",
			root: "EPCISQueryDocument",
		});
	});

	// Issue #17: GS1's examples begin with <!DOCTYPE project>; received over AS2 they were not indexed.
	it("looks past one bare DOCTYPE, as GS1's examples carry it, and no other", () => {
		const root = `<epcis:EPCISDocument schemaVersion="2.0" xmlns:epcis="urn:epcglobal:epcis:xsd:2">`;
		const decl = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n`;
		expect(detectEpcisDocument(`${decl}<!DOCTYPE project>\n${root}`)).toEqual({
			version: "2.0",
			root: "EPCISDocument",
		});
		expect(detectEpcisDocument(`<!-- a --><!DOCTYPE\tproject\n><!-- b -->${root}`)).toEqual({
			version: "2.0",
			root: "EPCISDocument",
		});
		for (const doctype of [
			"<!DOCTYPE project []>",
			`<!DOCTYPE project SYSTEM "p.dtd">`,
			"<!DOCTYPE project><!DOCTYPE project>",
			"<!DOCTYPE project",
			"<!doctype project>",
		]) {
			expect(detectEpcisDocument(`${decl}${doctype}${root}`), doctype).toBeNull();
		}
	});

	it("says null for anything else", () => {
		expect(detectEpcisDocument("<EPCISDocument>")).toBeNull();
		expect(detectEpcisDocument(`<e:EPCISDocument xmlns:x="urn:epcglobal:epcis:xsd:1">`)).toBeNull();
		expect(detectEpcisDocument(`<Invoice xmlns="urn:epcglobal:epcis:xsd:1">`)).toBeNull();
		expect(detectEpcisDocument("ISA*00*          *00*")).toBeNull();
		expect(detectEpcisDocument("<!-- unterminated")).toBeNull();
		expect(detectEpcisDocument(new Uint8Array([0xff, 0xfe, 0x00]))).toBeNull();
	});
});
