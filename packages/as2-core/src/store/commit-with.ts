import type { As2Store } from "./store.ts";
import { together } from "./together.ts";

/**
 * A transaction body's last calls, handed to its store (As2Store.commitWith): on PostgreSQL
 * COMMIT goes out with their statements; on a store without it (storage-sqlite) they are
 * awaited together and the store commits after the body as always. Either way it settles once
 * every call has (the port's rule: a body awaits every call it makes), rejecting with the
 * first failure.
 */
export function commitWith(tx: As2Store, calls: readonly (Promise<unknown> | undefined)[]): Promise<void> {
	// Without the store's own: `together`, one reaction a call (the hot path's promises, issue #20).
	return tx.commitWith ? tx.commitWith(calls) : together(calls);
}
