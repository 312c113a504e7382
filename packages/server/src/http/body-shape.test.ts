import { isAs2Error } from "@as2kit/core";
import { describe, expect, it } from "vitest";
import { cpuStopwatch } from "../../../as2-core/test/helpers/cpu-time.ts";
import { fromForm } from "./body.ts";
import { checkJsonShape, MAX_BODY_DEPTH, MAX_BODY_VALUES } from "./body-shape.ts";

function codeOf(run: () => unknown): string | null {
	try {
		run();
		return null;
	} catch (error) {
		return isAs2Error(error) ? `${error.status} ${error.code}` : String(error);
	}
}

const deep = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
const list = (items: number) => `[${Array(items).fill("0").join(",")}]`;

describe("checkJsonShape: nesting and value count before JSON.parse", () => {
	it("takes bodies up to the limits and refuses beyond: 422 too deep, 413 too many values", () => {
		expect(codeOf(() => checkJsonShape(deep(MAX_BODY_DEPTH)))).toBeNull();
		expect(codeOf(() => checkJsonShape(deep(MAX_BODY_DEPTH + 1)))).toBe("422 VALIDATION_FAILED");
		expect(codeOf(() => checkJsonShape(list(MAX_BODY_VALUES - 1)))).toBeNull();
		expect(codeOf(() => checkJsonShape(list(MAX_BODY_VALUES + 1)))).toBe("413 REQUEST_TOO_LARGE");
	});

	it("ignores brackets, commas and escaped quotes inside strings", () => {
		const text = JSON.stringify({ a: `${"[{,".repeat(MAX_BODY_VALUES)}\\"[`, b: ['"', "\\", "\\\\]"] });
		expect(codeOf(() => checkJsonShape(text))).toBeNull();
		expect(codeOf(() => checkJsonShape(`["\\\\", ${deep(MAX_BODY_DEPTH)}]`))).toBe("422 VALIDATION_FAILED");
	});

	it("reads a 16 MB string in milliseconds (strings are skipped with indexOf)", () => {
		const text = JSON.stringify({ payload: { content: `${'x\\"'.repeat(4 * 1024 * 1024)}` } });
		const cpuMs = cpuStopwatch();
		checkJsonShape(text);
		expect(cpuMs()).toBeLessThan(500);
	});
});

describe("fromForm: a form as its JSON twin, in linear time", () => {
	it("repeats, lists, nests and keeps booleans", () => {
		expect(
			fromForm([
				["a", "1"],
				["a", "2"],
				["a", "3"],
				["b[]", "x"],
				["c[d]", "true"],
				["c[e][]", "false"],
			]),
		).toEqual({ a: ["1", "2", "3"], b: ["x"], c: { d: true, e: [false] } });
	});

	it("reads a field named after an Object.prototype member as a field, and drops __proto__", () => {
		const form = fromForm([
			["toString", "x"],
			["constructor", "y"],
			["__proto__[polluted]", "z"],
			["valueOf[]", "w"],
		]);
		expect(form).toEqual({ toString: "x", valueOf: ["w"] });
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});

	it("appends 10,000 repeated keys in place (copying the list each time took 15 s for 20,000)", () => {
		const cpuMs = cpuStopwatch();
		const form = fromForm(Array.from({ length: MAX_BODY_VALUES }, () => ["a", ""] as [string, string]));
		expect(cpuMs()).toBeLessThan(500);
		expect((form.a as string[]).length).toBe(MAX_BODY_VALUES);
	});

	it("refuses more fields than the limit (413) and keys nested deeper (422)", () => {
		const many = Array.from({ length: MAX_BODY_VALUES + 1 }, (_, i) => [`k${i}`, ""] as [string, string]);
		expect(codeOf(() => fromForm(many))).toBe("413 REQUEST_TOO_LARGE");
		expect(codeOf(() => fromForm([[`a${"[a]".repeat(MAX_BODY_DEPTH - 1)}`, "1"]]))).toBeNull();
		expect(codeOf(() => fromForm([[`a${"[a]".repeat(MAX_BODY_DEPTH)}`, "1"]]))).toBe("422 VALIDATION_FAILED");
	});
});
