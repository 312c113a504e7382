import { describe, expect, it } from "vitest";
import { billingPeriod } from "../../src/service/billing/usage.ts";
import { PLANS, planOf } from "../../src/service/plans.ts";

describe("billingPeriod: the UTC calendar month, kept for the month it was last asked for", () => {
	it("follows the month as the clock crosses its ends, both ways", () => {
		const at = (iso: string) => billingPeriod(new Date(iso));
		expect(at("2026-01-31T23:59:59.999Z")).toMatchObject({
			key: "2026-01",
			view: { start: "2026-01-01T00:00:00.000000Z", end: "2026-01-31T23:59:59.999000Z" },
		});
		expect(at("2026-02-01T00:00:00.000Z").key).toBe("2026-02");
		expect(at("2026-02-28T12:00:00.000Z").view.end).toBe("2026-02-28T23:59:59.999000Z");
		// A clock read before the month turned, answered after: its own month, not the last one asked.
		expect(at("2026-01-31T23:59:59.999Z").key).toBe("2026-01");
		expect(at("2025-01-15T00:00:00.000Z").key).toBe("2025-01");
		expect(at("2026-01-01T00:00:00.000Z").start).toEqual(new Date("2026-01-01T00:00:00.000Z"));
	});

	it("answers a shared, frozen period that a caller cannot change for the next", () => {
		const period = billingPeriod(new Date("2026-03-10T00:00:00Z"));
		expect(billingPeriod(new Date("2026-03-20T00:00:00Z"))).toBe(period);
		expect(Object.isFrozen(period) && Object.isFrozen(period.view)).toBe(true);
	});
});

describe("planOf", () => {
	it("applies each deployment's Enterprise limits, and only to Enterprise", () => {
		const one = { requestsPerMinute: 6000, burst: 3 };
		const other = { concurrent: 50 };
		expect(planOf("enterprise", one)).toMatchObject({ requestsPerMinute: 6000, burst: 3, concurrent: null });
		expect(planOf("enterprise", other)).toMatchObject({ requestsPerMinute: null, concurrent: 50 });
		expect(planOf("enterprise", one)).toBe(planOf("enterprise", one));
		expect(planOf("enterprise")).toEqual(PLANS.enterprise);
		expect(planOf("free", one)).toBe(PLANS.free);
	});
});
