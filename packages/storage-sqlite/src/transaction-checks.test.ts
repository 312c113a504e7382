import type { As2Store } from "@as2kit/core/store";
import { afterEach, expect, it, vi } from "vitest";
import { createSqliteStore, type SqliteStoreOptions } from "./create-store.ts";

/**
 * The check of the root store inside a transaction (`transactionChecks` of `@as2kit/core/store`)
 * is off unless asked for: it costs every promise of the process a hook on Node 20. The test set-up asks for it
 * (test/setup/check-transactions.ts), so these tests set the variable themselves.
 */
afterEach(() => {
	vi.unstubAllEnvs();
});

/** What a root statement made inside a transaction's body came to: "ran", or its error. */
async function rootInsideTransaction(options: Partial<SqliteStoreOptions>): Promise<string> {
	const store = createSqliteStore({ url: ":memory:", searchIndexing: false, ...options });
	try {
		let inside!: Promise<string>;
		await store.transaction(async (tx) => {
			await tx.jobs.enqueue({ kind: "a", payload: {}, runAt: new Date(0) }, new Date(0));
			// Not awaited: unchecked, it waits for the lock this body holds, and runs once it is released.
			inside = store.jobs.list().then(
				(jobs) => `ran, saw ${jobs.length}`,
				(error: Error) => error.message,
			);
		});
		return await inside;
	} finally {
		await store.close();
	}
}

it("is off by default: the root store's call waits for the transaction and then runs", async () => {
	vi.stubEnv("AS2_CHECK_TRANSACTIONS", undefined);
	expect(await rootInsideTransaction({})).toBe("ran, saw 1");
	vi.stubEnv("AS2_CHECK_TRANSACTIONS", "0");
	expect(await rootInsideTransaction({})).toBe("ran, saw 1");
});

it("is on with AS2_CHECK_TRANSACTIONS=1 or the option, which wins over the variable", async () => {
	const refused = "storage-sqlite: the root store was used inside a transaction; use the transaction's store";
	vi.stubEnv("AS2_CHECK_TRANSACTIONS", "1");
	expect(await rootInsideTransaction({})).toBe(refused);
	expect(await rootInsideTransaction({ checkTransactions: false })).toBe("ran, saw 1");
	vi.stubEnv("AS2_CHECK_TRANSACTIONS", undefined);
	expect(await rootInsideTransaction({ checkTransactions: true })).toBe(refused);
});

it("joins a nested transaction through the transaction's store, checked or not", async () => {
	for (const checkTransactions of [false, true]) {
		const store = createSqliteStore({ url: ":memory:", searchIndexing: false, checkTransactions });
		try {
			const failed = store.transaction(async (tx) => {
				await tx.transaction((inner) =>
					inner.jobs.enqueue({ kind: "a", payload: {}, runAt: new Date(0) }, new Date(0)),
				);
				expect(await tx.jobs.list()).toHaveLength(1);
				throw new Error("outer fails");
			});
			await expect(failed).rejects.toThrow("outer fails");
			expect(await store.jobs.list()).toHaveLength(0);
		} finally {
			await store.close();
		}
	}
});

it("refuses a call on a transaction's store after its body settled, unchecked too while no other body runs", async () => {
	const store = createSqliteStore({ url: ":memory:", searchIndexing: false, checkTransactions: false });
	try {
		let kept!: As2Store;
		await store.transaction(async (tx) => {
			kept = tx;
		});
		await expect((async () => kept.jobs.list())()).rejects.toThrow(/after its body settled/);
	} finally {
		await store.close();
	}
});
