import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Whether a call is made from inside a transaction's body: what the storage adapters check to
 * refuse their root store there. That is a programming error: on SQLite the call waits for the
 * lock its own body holds (a deadlock), on PostgreSQL it runs outside the transaction, on
 * another pooled connection. Only an async context can tell, at the call, a statement made
 * inside the body from one made by a concurrent request (both find the connection busy), and on
 * Node 20 an AsyncLocalStorage that has run installs promise hooks for the whole process: 25 KB
 * of JS heap and 10–20 µs of CPU per message on the sender (docs/performance-storage.md, "The
 * storage adapters without AsyncLocalStorage (stop 30)"). So it is off unless asked for, and the
 * tests ask for it (AS2_CHECK_TRANSACTIONS=1, their set-up): a mistake is found where it is
 * made, and production does not pay for looking.
 */
export interface TransactionChecks {
	/** Runs a transaction's body; when checking, its async context knows it until it settles. */
	inside<T>(fn: () => Promise<T>): Promise<T>;
	/** When checking, whether this async context is inside a body that has not settled; unchecked, null. */
	inBody(): boolean | null;
}

const UNCHECKED: TransactionChecks = {
	inside: (fn) => fn(),
	inBody: () => null,
};

/** One connection's checks: a body of another connection is not "inside" for this one. */
export function transactionChecks(enabled: boolean): TransactionChecks {
	if (!enabled) return UNCHECKED;
	const body = new AsyncLocalStorage<{ settled: boolean }>();
	return {
		inside: async (fn) => {
			const running = { settled: false };
			try {
				return await body.run(running, fn);
			} finally {
				// A call the body left behind, or made from a timer it started, is no longer inside it.
				running.settled = true;
			}
		},
		inBody: () => {
			const running = body.getStore();
			return running !== undefined && !running.settled;
		},
	};
}

/** AS2_CHECK_TRANSACTIONS=1 (or `true`): the default of the store's `checkTransactions` option. */
export function checkTransactionsByDefault(env: NodeJS.ProcessEnv = process.env): boolean {
	return env.AS2_CHECK_TRANSACTIONS === "1" || env.AS2_CHECK_TRANSACTIONS === "true";
}
