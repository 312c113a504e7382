import { describe, expect, it } from "vitest";
import { textFieldErrors, textProblem } from "./request-text.ts";

describe("request text: well-formed Unicode without NUL", () => {
	it("refuses NUL and lone surrogates, takes every character including pairs", () => {
		expect(textProblem("a\u0000b")).toMatch(/NUL/);
		expect(textProblem("\ud800")).toMatch(/lone surrogate/);
		expect(textProblem("x\udc00")).toMatch(/lone surrogate/);
		for (const fine of ["", "plain", "Zoë", "注文", "😀", "\ufffd", "\u0001\u007f"])
			expect(textProblem(fine), fine).toBeNull();
	});

	it("names the path of each string and key at fault, except the fields given", () => {
		const body = {
			name: "a\u0000",
			list: ["ok", "\ud800"],
			nested: { "k\u0000": "v", deep: { value: "\u0000" } },
			payload: { content: "binary\u0000text" },
			file: new Blob(["\u0000"]),
		};
		expect(Object.keys(textFieldErrors(body, new Set(["payload.content"]))).sort()).toEqual([
			"list.1",
			"name",
			"nested.deep.value",
			"nested.k\u0000",
		]);
		expect(textFieldErrors("\u0000")).toEqual({ request: ["must not contain NUL (U+0000) characters"] });
	});
});
