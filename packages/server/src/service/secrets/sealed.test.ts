import { describe, expect, it } from "vitest";
import { open, seal } from "./sealed.ts";

const key = new Uint8Array(32).fill(3);

describe("sealed secrets", () => {
	it("round-trips and never contains the plaintext", () => {
		const sealed = seal(key, "-----BEGIN PRIVATE KEY-----", "cert_000001");
		expect(sealed).toMatch(/^v1\./);
		expect(sealed).not.toContain("PRIVATE");
		expect(open(key, sealed, "cert_000001").toString()).toBe("-----BEGIN PRIVATE KEY-----");
	});

	it("refuses another key, another context, or altered bytes", () => {
		const sealed = seal(key, "secret", "wh_000001");
		expect(() => open(new Uint8Array(32).fill(4), sealed, "wh_000001")).toThrow();
		expect(() => open(key, sealed, "wh_000002")).toThrow();
		const parts = sealed.split(".");
		parts[3] = Buffer.from("tampered").toString("base64url");
		expect(() => open(key, parts.join("."), "wh_000001")).toThrow();
	});
});
