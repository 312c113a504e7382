import { isAs2Error } from "@as2kit/core";
import { expect } from "vitest";

/** Asserts that `promise` fails with the port's unique-violation error. */
export async function expectConflict(promise: Promise<unknown>): Promise<void> {
	const error = await promise.then(
		() => null,
		(e: unknown) => e,
	);
	expect(isAs2Error(error) && error.code).toBe("CONFLICT");
}
