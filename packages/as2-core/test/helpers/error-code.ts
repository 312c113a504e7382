import { isAs2Error } from "../../src/errors/index.ts";

/**
 * The As2Error code a promise rejects with, or "no error". A foreign error is rethrown, so
 * an untyped failure (the kind "never a crash" forbids) fails the test that hits it.
 */
export async function errorCode(promise: Promise<unknown>): Promise<string> {
	try {
		await promise;
	} catch (error) {
		if (isAs2Error(error)) return error.code;
		throw error;
	}
	return "no error";
}
