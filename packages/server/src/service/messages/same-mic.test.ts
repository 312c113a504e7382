import { describe, expect, it } from "vitest";
import { sameMic } from "./mdn-verdict.ts";

describe("sameMic", () => {
	const ours = "Jq4kzEKJ0Ab3Dk1ySgrp3iDkTdDLHvJSgL2u9G2Zc6o=, sha-256";

	it("is the same MIC when the partner echoes our text", () => {
		expect(sameMic(ours, `Jq4kzEKJ0Ab3Dk1ySgrp3iDkTdDLHvJSgL2u9G2Zc6o=, ${"sha-256"}`)).toBe(true);
	});

	it.each([
		"Jq4kzEKJ0Ab3Dk1ySgrp3iDkTdDLHvJSgL2u9G2Zc6o=,sha256",
		"Jq4kzEKJ0Ab3Dk1ySgrp3iDkTdDLHvJSgL2u9G2Zc6o= , SHA_256",
	])("does not mind the algorithm's spelling: %s", (theirs) => {
		expect(sameMic(ours, theirs)).toBe(true);
	});

	it.each([
		"AAAAzEKJ0Ab3Dk1ySgrp3iDkTdDLHvJSgL2u9G2Zc6o=, sha-256",
		"Jq4kzEKJ0Ab3Dk1ySgrp3iDkTdDLHvJSgL2u9G2Zc6o=, sha-1",
	])("tells another digest or algorithm apart: %s", (theirs) => {
		expect(sameMic(ours, theirs)).toBe(false);
	});
});
