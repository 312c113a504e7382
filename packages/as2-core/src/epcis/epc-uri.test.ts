import { describe, expect, it } from "vitest";
import { checkEpcUri, hasValidCheckDigit } from "./epc-uri.ts";

describe("checkEpcUri (TDS pure identities, classes, Digital Link)", () => {
	it("accepts well-formed pure identity URIs", () => {
		for (const uri of [
			"urn:epc:id:sgtin:0614141.107346.2017",
			"urn:epc:id:sgtin:0614141.107346.A%2Fb-1",
			"urn:epc:id:sscc:0614141.1234567890",
			"urn:epc:id:sgln:0614141.12345.400",
			"urn:epc:id:grai:0614141.12345.400",
			"urn:epc:id:giai:0614141.12345400",
			"urn:epc:id:pgln:0614141.00000",
		]) {
			expect(checkEpcUri(uri)).toEqual({ kind: "pure-identity", scheme: uri.split(":")[3] });
		}
	});

	it("names what is wrong with a malformed one", () => {
		expect(checkEpcUri("urn:epc:id:sgtin:0614141.10734.2017").problem).toMatch(/13 digits/);
		expect(checkEpcUri("urn:epc:id:sgtin:0614141.107346").problem).toMatch(/3 dot-separated/);
		expect(checkEpcUri("urn:epc:id:sscc:0614141.123").problem).toMatch(/17 digits/);
		expect(checkEpcUri("urn:epc:id:sgtin:0614141.107346.a b").problem).toMatch(/serial/);
		expect(checkEpcUri("urn:epc:id:nope:1.2").problem).toMatch(/unknown EPC scheme/);
	});

	it("classes, patterns, tag and raw URIs", () => {
		expect(checkEpcUri("urn:epc:class:lgtin:4012345.012345.998877")).toEqual({ kind: "class", scheme: "lgtin" });
		expect(checkEpcUri("urn:epc:idpat:sgtin:4012345.098765.*")).toEqual({ kind: "pattern", scheme: "sgtin" });
		expect(checkEpcUri("urn:epc:tag:sgtin-96:3.0614141.107346.2017").kind).toBe("tag");
		expect(checkEpcUri("urn:epc:raw:96.x1234").kind).toBe("raw");
	});

	it("GS1 Digital Link URIs, with the check digit", () => {
		expect(checkEpcUri("https://id.gs1.org/01/09521141123454/21/ABC123")).toEqual({
			kind: "digital-link",
			scheme: "sgtin",
		});
		expect(checkEpcUri("https://example.com/01/09521141123454/10/LOT")).toEqual({
			kind: "digital-link",
			scheme: "lgtin",
		});
		expect(checkEpcUri("https://id.gs1.org/00/095211410000000014")).toEqual({ kind: "digital-link", scheme: "sscc" });
		expect(checkEpcUri("https://id.gs1.org/01/09521141123455/21/1").problem).toMatch(/check digit/);
		expect(checkEpcUri("https://example.com/page")).toEqual({ kind: "other-uri" });
		expect(hasValidCheckDigit("09521141123454")).toBe(true);
	});

	it("other URIs are URIs; other text is not", () => {
		expect(checkEpcUri("urn:uuid:4a3b31a2-2c4f-4c85-9a6b-9b06c2e2b0a1")).toEqual({ kind: "other-uri" });
		expect(checkEpcUri("just text").problem).toBe("not a URI");
	});
});
