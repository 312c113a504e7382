import { describe, expect, it } from "vitest";
import { createHeldPayloads } from "../../src/service/messages/held-payloads.ts";

/** The payloads a submission holds for its send job (issue #20): taken once, bounded, never wrong. */
describe("held payloads", () => {
	const bytes = (size: number, fill = 1) => new Uint8Array(size).fill(fill);

	it("gives a held payload once: a retry or a later claim reads the blob", () => {
		const held = createHeldPayloads();
		const payload = bytes(10);
		held.hold("payloads/a", payload);
		expect(held.take("payloads/a", 10)).toBe(payload);
		expect(held.take("payloads/a", 10)).toBeNull();
		expect(held.take("payloads/unknown", 10)).toBeNull();
	});

	it("never gives bytes whose length is not the record's", () => {
		const held = createHeldPayloads();
		held.hold("payloads/a", bytes(10));
		expect(held.take("payloads/a", 11)).toBeNull();
		expect(held.take("payloads/a", 10)).toBeNull();
	});

	it("holds no large payload, and drops the oldest beyond its total", () => {
		const held = createHeldPayloads(100);
		held.hold("payloads/large", bytes(65 * 1024));
		expect(held.take("payloads/large", 65 * 1024)).toBeNull();
		held.hold("payloads/1", bytes(40, 1));
		held.hold("payloads/2", bytes(40, 2));
		held.hold("payloads/3", bytes(40, 3));
		expect(held.take("payloads/1", 40)).toBeNull();
		expect(held.take("payloads/2", 40)?.[0]).toBe(2);
		expect(held.take("payloads/3", 40)?.[0]).toBe(3);
		// What was taken no longer counts: room again for two.
		held.hold("payloads/4", bytes(50));
		held.hold("payloads/5", bytes(50));
		expect(held.take("payloads/4", 50)).not.toBeNull();
		expect(held.take("payloads/5", 50)).not.toBeNull();
	});
});
