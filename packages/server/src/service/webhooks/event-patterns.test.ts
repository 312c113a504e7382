import { describe, expect, it } from "vitest";
import { isEventPattern, matchesEvent } from "./event-patterns.ts";

describe("event patterns", () => {
	it("accepts catalog kinds, <category>.* and *, nothing else", () => {
		for (const p of ["*", "message.*", "billing.*", "webhook.*", "message.sent", "billing.payment_failed"]) {
			expect(isEventPattern(p), p).toBe(true);
		}
		for (const p of ["", "message", "message.", "messages.*", "message.sent.*", "*.sent", "message.SENT", "**"]) {
			expect(isEventPattern(p), p).toBe(false);
		}
	});

	it("matches exact kinds, categories and everything", () => {
		expect(matchesEvent(["message.sent"], "message.sent")).toBe(true);
		expect(matchesEvent(["message.sent"], "message.failed")).toBe(false);
		expect(matchesEvent(["message.*"], "message.failed")).toBe(true);
		expect(matchesEvent(["message.*"], "partner.created")).toBe(false);
		expect(matchesEvent(["partner.created", "*"], "billing.limit_exceeded")).toBe(true);
		expect(matchesEvent([], "message.sent")).toBe(false);
	});
});
