import { describe, expect, it } from "vitest";
import { PACKAGE_STATUS } from "./index.ts";

describe("@as2kit/storage-sqlite", () => {
	it("is a placeholder until its issue lands", () => {
		expect(PACKAGE_STATUS).toMatch(/^placeholder: /);
	});
});
