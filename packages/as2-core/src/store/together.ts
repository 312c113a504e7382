/**
 * Waits for port calls of one transaction (the service's, and commitWith's on a store without its own) that do not depend on each other, made together so
 * that a pipelining store writes their statements at once: on PostgreSQL one write and one round
 * trip instead of one per call (storage-pg connection.ts, performance-storage.md "PostgreSQL
 * round trips (stop 28)"). Every call settles before this does, so none of them runs after the
 * transaction has ended; it rejects with the error that settled first. On PostgreSQL that may be
 * the refusal ("current transaction is aborted") of a call written behind the one that failed:
 * the transaction then rejects with the failed call's error, its cause (storage-pg
 * connection.ts, `TransactionWire.causeOf`), so a body should let such an error through rather
 * than act on it.
 */
export function together(calls: readonly (Promise<unknown> | undefined)[]): Promise<void> {
	// One reaction per call and one promise in all: `Promise.all` over a `catch` per call made
	// three promises a call and two more (issue #20: ~20 a message on the sender, each an
	// allocation and, with an AsyncLocalStorage in use, a promise hook).
	return new Promise<void>((resolve, reject) => {
		let pending = 1;
		let first: { error: unknown } | null = null;
		const settled = () => {
			if (--pending > 0) return;
			if (first) reject(first.error);
			else resolve();
		};
		const failed = (error: unknown) => {
			first ??= { error };
			settled();
		};
		for (const call of calls) {
			if (!call) continue;
			pending++;
			call.then(settled, failed);
		}
		settled();
	});
}
