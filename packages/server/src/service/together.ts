/**
 * Waits for port calls of one transaction that do not depend on each other, made together so
 * that a pipelining store writes their statements at once: on PostgreSQL one write and one round
 * trip instead of one per call (storage-pg connection.ts, performance-storage.md "PostgreSQL
 * round trips (stop 28)"). Every call settles before this does, so none of them runs after the
 * transaction has ended; it rejects with the error that came first, the one that aborted the
 * transaction (the calls behind it on PostgreSQL fail with "current transaction is aborted").
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
