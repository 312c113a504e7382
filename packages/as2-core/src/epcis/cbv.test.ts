import { describe, expect, it } from "vitest";
import { classifyCbv, normalizeCbv } from "./cbv.ts";

describe("normalizeCbv", () => {
	it("gives the bare word for a standard term in URN, Web URI, compact and bare forms", () => {
		for (const value of [
			"urn:epcglobal:cbv:bizstep:shipping",
			"https://ref.gs1.org/cbv/BizStep-shipping",
			"http://ref.gs1.org/cbv/BizStep-shipping",
			"cbv:BizStep-shipping",
			"shipping",
			"  urn:epcglobal:cbv:bizstep:shipping\n",
		]) {
			expect(normalizeCbv("bizStep", value)).toBe("shipping");
		}
		expect(normalizeCbv("disposition", "https://ref.gs1.org/cbv/Disp-in_transit")).toBe("in_transit");
		expect(normalizeCbv("bizTransactionType", "urn:epcglobal:cbv:btt:desadv")).toBe("desadv");
		expect(normalizeCbv("sourceDestType", "https://ref.gs1.org/cbv/SDT-owning_party")).toBe("owning_party");
		expect(normalizeCbv("errorReason", "urn:epcglobal:cbv:er:did_not_occur")).toBe("did_not_occur");
	});

	it("keeps custom URIs and unknown CBV terms as they are", () => {
		expect(normalizeCbv("bizStep", "urn:example:step:quality-check")).toBe("urn:example:step:quality-check");
		expect(normalizeCbv("bizStep", "urn:epcglobal:cbv:bizstep:shiping")).toBe("urn:epcglobal:cbv:bizstep:shiping");
		expect(normalizeCbv("disposition", "urn:epcglobal:cbv:bizstep:shipping")).toBe(
			"urn:epcglobal:cbv:bizstep:shipping",
		);
	});

	it("tells a misspelt CBV term from a custom value", () => {
		expect(classifyCbv("bizStep", "urn:epcglobal:cbv:bizstep:shiping")).toMatchObject({
			standard: false,
			unknownCbvTerm: true,
		});
		expect(classifyCbv("bizStep", "https://example.com/steps/x")).toMatchObject({
			standard: false,
			unknownCbvTerm: false,
			form: "custom",
		});
		expect(classifyCbv("bizStep", "https://ref.gs1.org/cbv/BizStep-sensor_reporting")).toMatchObject({
			standard: true,
			form: "web",
		});
	});
});
