import { describe, expect, it } from "vitest";
import { checkSimpleValue, isLibxml2Uri, type SimpleType } from "./simple-types.ts";

/** Verdicts of `xmllint --schema` (libxml2 2.9.14) on these values, recorded when the rules were written. */
const LIBXML2: [SimpleType, string, boolean][] = [
	["decimal", "1.", true],
	["decimal", ".5", true],
	["decimal", "1e3", false],
	["decimal", " 1 ", true],
	["decimal", "111111111111111111111111", true],
	["decimal", "1111111111111111111111111", false],
	["decimal", "00111111111111111111111111", true],
	["decimal", "0.0000000000000000000000000000001", false],
	["dateTime", "2005-04-03T20:33:31", true],
	["dateTime", "2005-02-29T00:00:00Z", false],
	["dateTime", "2000-02-29T00:00:00Z", true],
	["dateTime", "1900-02-29T00:00:00Z", false],
	["dateTime", "2005-04-03T24:00:00Z", true],
	["dateTime", "2005-04-03T24:00:01Z", false],
	["dateTime", "-2005-04-03T20:33:31Z", true],
	["dateTime", "02005-04-03T20:33:31Z", false],
	["dateTime", "0000-01-01T00:00:00Z", false],
	["dateTime", " 2005-04-03T20:33:31Z", false],
	["dateTime", "2005-04-03T20:33:31Z ", true],
	["dateTime", "2005-04-03T20:33:31+14:01", false],
	["DateTimeStamp", "2005-04-03T20:33:31", false],
	["DateTimeStamp", " 2005-04-03T20:33:31Z ", true],
	["DateTimeStamp", "2005-04-03T24:00:00Z", false],
	["DateTimeStamp", "12005-04-03T20:33:31Z", false],
	["anyURI", "a b", true],
	["anyURI", "%zz", false],
	["anyURI", "a#b#c", false],
	["anyURI", "1abc:foo", false],
	["anyURI", "http://x:99999999999/", false],
	["anyURI", "http://[v1.x]/", true],
	["anyURI", "http://u@h@x/", false],
	["anyURI", "a/b:c", true],
	["anyURI", "é", true],
	["ActionType", " ADD", false],
	["ActionType", "OBSERVE", true],
	["int", "2147483648", false],
	["int", " 5 ", false],
	["double", "1e", true],
	["double", "+INF", false],
	["double", "-INF", true],
	["boolean", "TRUE", false],
	["boolean", " true ", true],
	["hexBinary", "abc", false],
	["hexBinary", "", true],
];

describe("XSD datatypes as libxml2 reads them", () => {
	for (const [type, value, valid] of LIBXML2) {
		it(`${type} ${JSON.stringify(value)} → ${valid ? "valid" : "invalid"}`, () => {
			expect(checkSimpleValue(type, value) === null).toBe(valid);
		});
	}

	it("anyURI: the empty string is a URI reference", () => {
		expect(isLibxml2Uri("")).toBe(true);
	});
});
