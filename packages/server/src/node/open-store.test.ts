import { expect, it } from "vitest";
import { openStore } from "./open-store.ts";

/**
 * The server's store checks for the root store inside a transaction only when its configuration
 * says so (AS2_CHECK_TRANSACTIONS, read by configFromEnv), whatever the adapter's own default
 * from the environment, which the test set-up turns on (test/setup/check-transactions.ts).
 */
it("passes AS2_CHECK_TRANSACTIONS to the adapter: off unless the configuration turns it on", async () => {
	expect(process.env.AS2_CHECK_TRANSACTIONS).toBe("1");
	const outcomes: string[] = [];
	for (const checkTransactions of [false, true]) {
		const store = await openStore(":memory:", { checkTransactions });
		try {
			let inside!: Promise<string>;
			await store.transaction(async (tx) => {
				await tx.jobs.list();
				// Not awaited: unchecked, it waits for the lock this body holds, and runs once it is released.
				inside = store.jobs.list().then(
					() => "ran",
					(error: Error) => error.message,
				);
			});
			outcomes.push(await inside);
		} finally {
			await store.close();
		}
	}
	expect(outcomes).toEqual(["ran", expect.stringMatching(/root store was used inside a transaction/)]);
});
