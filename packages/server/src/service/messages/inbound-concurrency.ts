/** Frees a slot; calling it again does nothing. */
export type ReleaseSlot = () => void;

export interface InboundConcurrency {
	/**
	 * A slot for receiving or processing one inbound message of `tenantId`, or null when the
	 * tenant already has `perTenant` (null: no tenant bound) or the instance its global bound.
	 */
	tryEnter(tenantId: string, perTenant: number | null): ReleaseSlot | null;
	/** Slots held now (instance-wide), for tests and metrics. */
	readonly running: number;
}

/**
 * Bounds inbound work on this instance (issue #16: a compression bomb costs seconds of CPU,
 * and nothing capped how many ran at once): at most `global` messages at a time, and at most
 * the plan's concurrent requests per tenant, so one tenant's flood cannot take the instance
 * from the others. In memory, per instance: it guards this process's CPU and disk, which is
 * what each instance has alone. Over either bound the caller answers at once (503 with
 * Retry-After on /as2/receive, which AS2 senders retry; a later run for a job) rather than
 * queueing, so waiting work holds no memory.
 */
export function createInboundConcurrency(global: number): InboundConcurrency {
	let running = 0;
	const byTenant = new Map<string, number>();
	return {
		tryEnter(tenantId, perTenant) {
			const mine = byTenant.get(tenantId) ?? 0;
			if (running >= global || (perTenant !== null && mine >= perTenant)) return null;
			running++;
			byTenant.set(tenantId, mine + 1);
			let released = false;
			return () => {
				if (released) return;
				released = true;
				running--;
				const left = (byTenant.get(tenantId) ?? 1) - 1;
				if (left > 0) byTenant.set(tenantId, left);
				else byTenant.delete(tenantId);
			};
		},
		get running() {
			return running;
		},
	};
}
