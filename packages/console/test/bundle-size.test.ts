/**
 * First load ≤ 200 KB of JavaScript gzipped (issue #19, Fast): every script index.html loads,
 * and every chunk it could import, measured from the built dist/ (`npm run build`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";

const DIST = join(import.meta.dirname, "../dist");
const BUDGET_BYTES = 200 * 1024;

describe("the console bundle", () => {
	it("is at most 200 KB of JavaScript gzipped, with no inline script in index.html", () => {
		const html = readFileSync(join(DIST, "index.html"), "utf8");
		expect(html).toMatch(/<script type="module" src="\/console\/assets\/app-\w+\.js">/);
		const scripts = readdirSync(join(DIST, "assets")).filter((name) => name.endsWith(".js"));
		expect(scripts.length).toBeGreaterThan(0);
		const gzipped = scripts.reduce(
			(sum, name) => sum + gzipSync(readFileSync(join(DIST, "assets", name)), { level: 9 }).byteLength,
			0,
		);
		expect(gzipped).toBeGreaterThan(1_000);
		expect(gzipped).toBeLessThanOrEqual(BUDGET_BYTES);
	});
});
