import { describe, expect, it } from "vitest";
import { stripMessageId } from "../src/as2/message-id.ts";
import { checkSimpleValue } from "../src/epcis/schema/simple-types.ts";
import { parseHeaderParams } from "../src/mime/content-type.ts";
import { parseHeaderBlock } from "../src/mime/header.ts";
import { cpuStopwatch } from "./helpers/cpu-time.ts";

/**
 * Issue #16, defect 2: parsers that read request input are linear. Each input below is the
 * worst shape of its parser at 64 KB or 512 KB (the server lets through a MIME header block
 * of 64 KB, an MDN of 1 MB, an EPCIS text of 1 MB); before the fix each took seconds (a
 * regular expression that backtracked quadratically, or a search repeated per parameter),
 * and hours at the full sizes. Linear, each takes milliseconds: 500 ms leaves a wide margin.
 */
const LINEAR_MS = 500;
const KB = 1024;

/** CPU time, not the wall clock: a loaded machine stretches the one, not the other. */
function timed<T>(run: () => T): { value: T; ms: number } {
	const cpuMs = cpuStopwatch();
	const value = run();
	return { value, ms: cpuMs() };
}

describe("parsers of request input stay linear on their worst input", () => {
	it("a MIME header name with 64 KB of blanks before a letter is refused at once (was /[ \\t]+$/)", () => {
		const block = Buffer.from(`X-Padding${" ".repeat(64 * KB)}x: 1\r\nContent-Type: text/plain\r\n\r\n`, "latin1");
		const { ms } = timed(() => expect(() => parseHeaderBlock(block)).toThrow(/invalid header name/));
		expect(ms).toBeLessThan(LINEAR_MS);
		// White space before the colon is still tolerated (RFC 5322 §4.5.3).
		expect(parseHeaderBlock(Buffer.from("Subject \t: hi\r\n\r\n")).get("subject")).toBe("hi");
	});

	it("a Message-ID of 64 KB of blanks between its brackets is stripped at once (was /\\s*>$/)", () => {
		const { value, ms } = timed(() => stripMessageId(`<a${" ".repeat(64 * KB)}b>`));
		expect(ms).toBeLessThan(LINEAR_MS);
		expect(value).toBe(`a${" ".repeat(64 * KB)}b`);
		expect(stripMessageId("  < abc@example.com >  ")).toBe("abc@example.com");
		expect(stripMessageId("<>")).toBe("");
		expect(stripMessageId("abc@example.com")).toBe("abc@example.com");
	});

	it("512 KB of empty parameters (`x;;;;…`) split at once (the next '=' was searched for after every ';')", () => {
		const { value, ms } = timed(() => parseHeaderParams(`form-data${";".repeat(512 * KB)}; name="file"`));
		expect(ms).toBeLessThan(LINEAR_MS);
		expect(value).toEqual({ value: "form-data", params: { name: "file" } });
		expect(parseHeaderParams('a; b=1;; c ;d="x;y"').params).toEqual({ b: "1", d: "x;y" });
	});

	it("an xsd:double of 64 KB of digits and an xsd:dateTime with 64 KB of blanks are judged at once", () => {
		const digits = timed(() => checkSimpleValue("double", `${"1".repeat(64 * KB)}x`));
		expect(digits.ms).toBeLessThan(LINEAR_MS);
		expect(digits.value).toMatch(/is not a valid double/);
		const blanks = timed(() => checkSimpleValue("dateTime", `2013-06-08T14:58:56Z${" ".repeat(64 * KB)}x`));
		expect(blanks.ms).toBeLessThan(LINEAR_MS);
		expect(blanks.value).toMatch(/is not a valid dateTime/);
		// The languages are unchanged.
		for (const valid of ["1", "1.", "1.5", ".5", "-1e", "+2.5E-3", "INF", "-INF", "NaN"]) {
			expect(checkSimpleValue("double", valid), valid).toBeNull();
		}
		for (const invalid of ["", ".", "+INF", "1.2.3", "e5"])
			expect(checkSimpleValue("double", invalid), invalid).not.toBeNull();
		expect(checkSimpleValue("dateTime", "2013-06-08T14:58:56Z \n\t")).toBeNull();
		expect(checkSimpleValue("dateTime", " 2013-06-08T14:58:56Z")).not.toBeNull();
	});
});
