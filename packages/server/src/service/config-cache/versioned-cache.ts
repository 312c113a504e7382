/**
 * How long an instance uses configuration it read without reading it again: the bound on how
 * late a change made on ANOTHER instance (a certificate deactivated or replaced, a partner or
 * master partner edited, a plan changed) is seen here; the same bound as API keys
 * (credential-cache.ts). A change made on this instance is seen at once. README, Running
 * several instances.
 */
export const CONFIG_CACHE_TTL_MS = 1000;
/** Past this many remembered reads the cache starts afresh (a bound on its memory). */
const MAX_ENTRIES = 10_000;

/** When a read started: what `put` needs to tell whether a change happened meanwhile. */
export interface ReadTicket {
	generation: number;
	readAt: number;
}

interface Entry<V> extends ReadTicket {
	value: V;
}

/**
 * Reads remembered for a short time, versioned by a generation: every change this instance
 * makes bumps it, and an entry from an older generation is never used, so the change is seen
 * at once here, even by a read that was in flight while it committed (its `put` is refused).
 */
export interface VersionedCache {
	get<V>(key: string): V | undefined;
	begin(): ReadTicket;
	put<V>(key: string, ticket: ReadTicket, value: V): void;
	/**
	 * The remembered value of `key`, else `load()`'s, remembered when `keep` says so (only what
	 * exists: a thing created on another instance must be found at once). With `share`, a caller
	 * that misses while a shared read of `key` is in flight in the same generation waits for that
	 * read instead of making its own: when an entry expires under load, every request in flight
	 * missed it at once and each read it again (some 0.7 reads a message on PostgreSQL, issue
	 * #20). Only reads of the engine's own store share: a transaction's read may fail with its
	 * transaction, and must not fail another request.
	 */
	through<V>(
		key: string,
		load: () => Promise<V>,
		keep: (value: V) => boolean,
		options?: { share?: boolean },
	): Promise<V>;
	/** Something changed on this instance: forget everything read before. */
	invalidate(): void;
}

/**
 * `clock` is monotonic milliseconds (tests pass their own). `freeze: false` hands out the very
 * values put, for a caller that updates them on purpose (the API-key cache keeps `last_used_at`).
 */
export function createVersionedCache(
	ttlMs = CONFIG_CACHE_TTL_MS,
	clock: () => number = () => performance.now(),
	maxEntries = MAX_ENTRIES,
	{ freeze = true }: { freeze?: boolean } = {},
): VersionedCache {
	const entries = new Map<string, Entry<unknown>>();
	/** Shared reads in flight, by key; settled ones are removed, so the map is bounded by the requests in flight. */
	const reading = new Map<string, { generation: number; value: Promise<unknown> }>();
	let generation = 0;

	function get<V>(key: string): V | undefined {
		const entry = entries.get(key);
		if (!entry) return undefined;
		if (entry.generation !== generation || clock() - entry.readAt >= ttlMs) {
			entries.delete(key);
			return undefined;
		}
		return entry.value as V;
	}
	const begin = (): ReadTicket => ({ generation, readAt: clock() });
	function put<V>(key: string, ticket: ReadTicket, value: V) {
		if (ticket.generation !== generation) return;
		if (entries.size >= maxEntries) entries.clear();
		entries.set(key, { ...ticket, value: freeze ? deepFreeze(value) : value });
	}

	return {
		get,
		begin,
		put,
		async through(key, load, keep, { share = false } = {}) {
			type V = Awaited<ReturnType<typeof load>>;
			const remembered = get<V>(key);
			if (remembered !== undefined) return remembered;
			const inFlight = share ? reading.get(key) : undefined;
			if (inFlight && inFlight.generation === generation) return inFlight.value as Promise<V>;
			const ticket = begin();
			if (!share) {
				const value = await load();
				if (keep(value)) put(key, ticket, value);
				return value;
			}
			// Every sharer gets the same object: frozen, whether it is remembered or not.
			const value = load().then((read) => {
				if (keep(read)) put(key, ticket, read);
				return freeze ? deepFreeze(read) : read;
			});
			const entry = { generation: ticket.generation, value };
			reading.set(key, entry);
			const settled = () => {
				if (reading.get(key) === entry) reading.delete(key);
			};
			value.then(settled, settled);
			return value;
		},
		invalidate() {
			generation++;
			entries.clear();
			reading.clear();
		},
	};
}

/**
 * One value is handed to every reader: frozen, a caller that changed it would throw instead of
 * changing what the next message reads. Byte arrays cannot be frozen; nothing writes to them.
 */
function deepFreeze<V>(value: V): V {
	if (typeof value !== "object" || value === null || ArrayBuffer.isView(value) || Object.isFrozen(value)) return value;
	Object.freeze(value);
	for (const field of Object.values(value)) deepFreeze(field);
	return value;
}
