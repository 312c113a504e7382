import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const CHILD = fileURLToPath(new URL("./epcis-child.mjs", import.meta.url));

function run(kind: string, version: string, bytes: number) {
	const out = execFileSync(process.execPath, ["--expose-gc", CHILD, kind, version, String(bytes)], {
		encoding: "utf8",
		timeout: 240_000,
	});
	return JSON.parse(out) as {
		bytesRead: number;
		eventCount: number;
		results: Record<string, string>;
		codes: string[];
		peakGrowthBytes: number;
	};
}

describe("epcis memory", () => {
	it("validates a 60 MB EPCIS 2.0 document (all rules) with peak RSS growth under 64 MB", () => {
		const result = run("document", "2.0", 60 * 1024 * 1024);
		expect(result.bytesRead).toBeGreaterThanOrEqual(60 * 1024 * 1024);
		expect(result.eventCount).toBeGreaterThan(50_000);
		expect(result.results.schema_compliance).toBe("passed");
		expect(result.results.business_rules).toBe("passed");
		expect(result.peakGrowthBytes).toBeLessThan(64 * 1024 * 1024);
	}, 300_000);

	it("refuses a 100 MB attribute with peak RSS growth under 32 MB", () => {
		const result = run("attribute", "2.0", 100 * 1024 * 1024);
		expect(result.codes).toEqual(["XML_LIMIT_EXCEEDED"]);
		expect(result.bytesRead).toBeLessThan(2 * 1024 * 1024);
		expect(result.peakGrowthBytes).toBeLessThan(32 * 1024 * 1024);
	}, 300_000);
});
