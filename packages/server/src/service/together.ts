/**
 * Waits for port calls of one transaction that do not depend on each other, made together so
 * that a pipelining store writes their statements at once: on PostgreSQL one write and one round
 * trip instead of one per call (storage-pg connection.ts, performance-storage.md "PostgreSQL
 * round trips (stop 28)"). Every call settles before this does, so none of them runs after the
 * transaction has ended; it rejects with the error that settled first. On PostgreSQL that may be
 * the refusal ("current transaction is aborted") of a call written behind the one that failed:
 * the transaction then rejects with the failed call's error, its cause (storage-pg
 * connection.ts, `TransactionWire.causeOf`), so a body should let such an error through rather
 * than act on it.
 */
export async function together(calls: readonly (Promise<unknown> | undefined)[]): Promise<void> {
	let first: { error: unknown } | null = null;
	await Promise.all(
		calls.map((call) =>
			call?.catch((error: unknown) => {
				first ??= { error };
			}),
		),
	);
	if (first) throw (first as { error: unknown }).error;
}
