import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { testIdentity } from "../helpers/certs.ts";

const CHILD = fileURLToPath(new URL("./pack-unpack-child.mjs", import.meta.url));

describe("memory", () => {
	it("builds and parses a 256 MB payload (sign + encrypt) with peak RSS growth under 64 MB", () => {
		const alice = testIdentity("alice");
		const bob = testIdentity("bob");
		const out = execFileSync(
			process.execPath,
			["--expose-gc", CHILD, alice.keyPath, alice.certPath, bob.keyPath, bob.certPath, String(256 * 1024 * 1024)],
			{ encoding: "utf8", timeout: 240_000 },
		);
		const result = JSON.parse(out) as { bytes: number; same: boolean; micMatches: boolean; peakGrowthBytes: number };
		expect(result.bytes).toBe(256 * 1024 * 1024);
		expect(result.same).toBe(true);
		expect(result.micMatches).toBe(true);
		expect(result.peakGrowthBytes).toBeLessThan(64 * 1024 * 1024);
	}, 300_000);
});
