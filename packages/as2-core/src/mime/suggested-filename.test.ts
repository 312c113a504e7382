import { describe, expect, it } from "vitest";
import { suggestedFilename } from "./suggested-filename.ts";

describe("suggestedFilename (RFC 2183 §2.3, §5)", () => {
	it("keeps an ordinary name, Unicode included", () => {
		expect(suggestedFilename("order 42.x12")).toBe("order 42.x12");
		expect(suggestedFilename("Bestellung Müller 注文.x12")).toBe("Bestellung Müller 注文.x12");
	});

	it("drops the sender's directory path, either separator", () => {
		expect(suggestedFilename("../../etc/passwd")).toBe("passwd");
		expect(suggestedFilename("C:\\inbox\\po.x12")).toBe("po.x12");
		expect(suggestedFilename("a/b\\c.edi")).toBe("c.edi");
	});

	it("replaces control characters: no NUL to store, no CR/LF to split a header sent on", () => {
		expect(suggestedFilename("po\u0000.x12")).toBe("po\ufffd.x12");
		expect(suggestedFilename("po\r\nX-Injected: 1.x12")).toBe("po  X-Injected: 1.x12");
	});

	it("is undefined when nothing usable is left", () => {
		for (const raw of [undefined, "", "   ", "dir/", "..", "a/..", "."])
			expect(suggestedFilename(raw), raw).toBeUndefined();
	});
});
