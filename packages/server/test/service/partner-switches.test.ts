/**
 * build-outbound.ts `partnerSwitches`: the compatibility switches a message is built and sent
 * with, worked out once per version of the partner's settings (issue #20) and always the ones
 * `effectiveCompatibility` gives for that version.
 */
import type { CompatibilityChoice, PartnerRecord } from "@as2kit/core/store";
import { describe, expect, it } from "vitest";
import { partnerSwitches } from "../../src/service/messages/build-outbound.ts";
import { effectiveCompatibility } from "../../src/service/partners/compatibility-profiles.ts";

const partnerWith = (compatibility: CompatibilityChoice) =>
	({ settings: { compatibility } }) as unknown as PartnerRecord;

describe("partnerSwitches", () => {
	it("gives the effective switches of each choice: defaults, a profile, own switches over a profile", () => {
		const choices: CompatibilityChoice[] = [
			{},
			{ profile: "ibm-sterling" },
			{ profile: "ibm-sterling", chunked: false, transferEncoding: "base64" },
			{ chunked: true },
		];
		for (const choice of choices) {
			expect(partnerSwitches(partnerWith(choice))).toEqual(effectiveCompatibility(choice));
		}
	});

	it("is worked out once per version of the settings, and anew when they change", () => {
		const version1 = partnerWith({ chunked: true });
		const first = partnerSwitches(version1);
		expect(partnerSwitches(version1)).toBe(first);
		expect(Object.isFrozen(first)).toBe(true);
		// A changed partner is a new record in the configuration cache, with new settings.
		const version2 = partnerWith({ chunked: false });
		expect(partnerSwitches(version2).chunked).toBe(false);
		expect(partnerSwitches(version1).chunked).toBe(true);
	});
});
