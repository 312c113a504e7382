import type {
	AccountStore,
	As2Store,
	CertificateStore,
	PartnerStore,
	TenantStore,
	WebhookEndpointStore,
} from "@as2kit/core/store";
import type { VersionedCache } from "./versioned-cache.ts";

/**
 * What each method of a configuration repository does to the cached reads: a "change" makes
 * them stale; a "read" or a "counter" (statistics no cached read returns) does not. Every
 * method must be named here: a repository method added later fails the typecheck until it is.
 */
type Effects<Repository> = { [Method in keyof Repository]: "change" | "read" | "counter" };

const ACCOUNTS: Effects<AccountStore> = { create: "change", get: "read", findBySlug: "read", update: "change" };
const TENANTS: Effects<TenantStore> = {
	create: "change",
	get: "read",
	findByAs2Id: "read",
	findBySlug: "read",
	list: "read",
	update: "change",
};
const PARTNERS: Effects<PartnerStore> = {
	create: "change",
	getForTenant: "read",
	getMaster: "read",
	findVisible: "read",
	findVisibleByAs2Id: "read",
	list: "read",
	listMasters: "read",
	countForAccount: "read",
	update: "change",
	softDelete: "change",
	getOverride: "read",
	putOverride: "change",
	deleteOverride: "change",
};
const CERTIFICATES: Effects<CertificateStore> = {
	create: "change",
	get: "read",
	list: "read",
	listFor: "read",
	countUploaded: "read",
	update: "change",
	softDelete: "change",
	deactivateForPartner: "change",
	listUnnotified: "read",
	markNotified: "change",
	soonestExpiries: "read",
};
const WEBHOOK_ENDPOINTS: Effects<WebhookEndpointStore> = {
	create: "change",
	get: "read",
	list: "read",
	listActive: "read",
	hasActiveInAccount: "read",
	update: "change",
	delete: "change",
	// Counts and the failure streak only: disabling an endpoint is an `update`.
	recordAttempt: "counter",
	stats: "read",
};

const WATCHED = {
	accounts: ACCOUNTS,
	tenants: TENANTS,
	partners: PARTNERS,
	certificates: CERTIFICATES,
	webhookEndpoints: WEBHOOK_ENDPOINTS,
} as const;
type Watched = keyof typeof WATCHED;

/** A transaction's part in the bookkeeping: whether it changed configuration. */
interface TransactionState {
	changedConfig: boolean;
}

const transactions = new WeakMap<As2Store, TransactionState>();

/**
 * Whether `store` is a transaction that changed configuration: its reads must go to the
 * database (they see its own uncommitted changes) and must not be remembered (it may roll back).
 */
export function changedConfigIn(store: As2Store): boolean {
	return transactions.get(store)?.changedConfig ?? false;
}

/**
 * The store as this instance's engine uses it: every change to configuration (accounts,
 * tenants, partners and overrides, certificates, webhook endpoints), wherever in the engine it
 * is made, invalidates `cache` before the change and again once it has committed or rolled
 * back, so no read that saw the old state is remembered past the change.
 *
 * `webhookEndpoints.hasActiveInAccount` is remembered here when it answers yes, never no: the
 * spec sends an event to each active endpoint (interface spec, Events), so an endpoint just
 * created, on any instance, must be seen by the very next event; a stale "yes" costs only a
 * fan-out job that finds no endpoint (events.ts).
 */
export function watchConfigWrites(store: As2Store, cache: VersionedCache): As2Store {
	return watched(store, cache, null);
}

function watched(store: As2Store, cache: VersionedCache, transaction: TransactionState | null): As2Store {
	const repositories = new Map<PropertyKey, unknown>();
	const view: As2Store = new Proxy(store, {
		get(target, property) {
			if (property === "transaction") return runTransaction;
			if (!(property in WATCHED)) {
				const value = Reflect.get(target, property, target);
				return typeof value === "function" ? value.bind(target) : value;
			}
			let repository = repositories.get(property);
			if (!repository) {
				repository = watchRepository(property as Watched);
				repositories.set(property, repository);
			}
			return repository;
		},
	});
	if (transaction) transactions.set(view, transaction);

	function runTransaction<T>(fn: (tx: As2Store) => Promise<T>): Promise<T> {
		// A nested transaction joins the outer one (As2Store.transaction): so does its bookkeeping.
		if (transaction) return store.transaction((tx) => fn(watched(tx, cache, transaction)));
		const state: TransactionState = { changedConfig: false };
		return store
			.transaction((tx) => fn(watched(tx, cache, state)))
			.finally(() => {
				if (state.changedConfig) cache.invalidate();
			});
	}

	function watchRepository(name: Watched) {
		const repository = store[name] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
		const wrapped: Record<string, unknown> = {};
		for (const [method, effect] of Object.entries(WATCHED[name])) {
			// Looked up at each call: whatever replaces a method later (a test's spy) is called.
			const call = (...args: unknown[]) => repository[method]!(...args);
			wrapped[method] = effect === "change" ? changing(call) : call;
		}
		if (name === "webhookEndpoints") {
			const hasActive = wrapped.hasActiveInAccount as (accountId: string) => Promise<boolean>;
			wrapped.hasActiveInAccount = (accountId: string) =>
				transaction?.changedConfig
					? hasActive(accountId)
					: cache.through(
							`webhooks:${accountId}`,
							() => hasActive(accountId),
							(yes) => yes,
						);
		}
		return wrapped;
	}

	function changing(call: (...args: unknown[]) => Promise<unknown>) {
		return (...args: unknown[]) => {
			cache.invalidate();
			if (transaction) {
				transaction.changedConfig = true;
				return call(...args);
			}
			return call(...args).finally(() => cache.invalidate());
		};
	}

	return view;
}
