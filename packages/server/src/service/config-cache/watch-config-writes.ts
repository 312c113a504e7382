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

/** What a watched store's repositories share: the cache and, in a transaction, its state. */
interface Scope {
	cache: VersionedCache;
	transaction: TransactionState | null;
}

/** Read through a watched store: its scope (a property no adapter has). */
const SCOPE = Symbol("config-cache scope");

/**
 * Whether `store` is a transaction that changed configuration: its reads must go to the
 * database (they see its own uncommitted changes) and must not be remembered (it may roll back).
 */
export function changedConfigIn(store: As2Store): boolean {
	return (store as unknown as { [SCOPE]?: Scope })[SCOPE]?.transaction?.changedConfig ?? false;
}

/** Whether `store` is a transaction's (watched) store rather than the engine's own. */
export function inTransaction(store: As2Store): boolean {
	return Boolean((store as unknown as { [SCOPE]?: Scope })[SCOPE]?.transaction);
}

/**
 * The store as this instance's engine uses it: every change to configuration (accounts,
 * tenants, partners and overrides, certificates, webhook endpoints), wherever in the engine it
 * is made, invalidates `cache` before the change and again once it has committed or rolled
 * back, so no read that saw the old state is remembered past the change.
 *
 * Every transaction gets a view of its own, so the views are cheap: one Proxy and its handler,
 * the repositories' methods shared on prototypes (a closure per method and transaction cost
 * microseconds per message).
 */
export function watchConfigWrites(store: As2Store, cache: VersionedCache): As2Store {
	return watched(store, { cache, transaction: null });
}

function watched(store: As2Store, scope: Scope): As2Store {
	return new Proxy(store, new ViewHandler(store, scope));
}

class ViewHandler implements ProxyHandler<As2Store> {
	private repositories: { [Name in Watched]?: object } = {};
	/** What was assigned to the view (a test wrapping `transaction`): kept here, not on the adapter's store. */
	private assigned: Map<PropertyKey, unknown> | null = null;
	constructor(
		private readonly store: As2Store,
		private readonly scope: Scope,
	) {}

	set(_target: As2Store, property: PropertyKey, value: unknown): boolean {
		this.assigned ??= new Map();
		this.assigned.set(property, value);
		return true;
	}

	get(target: As2Store, property: PropertyKey): unknown {
		if (this.assigned?.has(property)) return this.assigned.get(property);
		switch (property) {
			case "transaction":
				return this.runTransaction;
			case SCOPE:
				return this.scope;
			case "accounts":
			case "tenants":
			case "partners":
			case "certificates":
			case "webhookEndpoints":
				this.repositories[property] ??= watchedRepository(property, target[property], this.scope);
				return this.repositories[property];
		}
		const value = Reflect.get(target, property, target);
		return typeof value === "function" ? value.bind(target) : value;
	}

	private runTransaction = <T>(fn: (tx: As2Store) => Promise<T>): Promise<T> => {
		const { store, scope } = this;
		// A nested transaction joins the outer one (As2Store.transaction): so does its bookkeeping.
		if (scope.transaction) return store.transaction((tx) => fn(watched(tx, scope)));
		const inner: Scope = { cache: scope.cache, transaction: { changedConfig: false } };
		return store
			.transaction((tx) => fn(watched(tx, inner)))
			.finally(() => {
				if (inner.transaction!.changedConfig) scope.cache.invalidate();
			});
	};
}

interface WatchedRepository {
	repository: Record<string, (...args: unknown[]) => Promise<unknown>>;
	scope: Scope;
}

/** One prototype per repository: its methods call the adapter's, a change invalidating around it. */
const PROTOTYPES = Object.fromEntries(
	Object.entries(WATCHED).map(([name, effects]) => {
		const prototype: Record<string, unknown> = {};
		for (const [method, effect] of Object.entries(effects)) {
			prototype[method] =
				effect === "change"
					? function (this: WatchedRepository, ...args: unknown[]) {
							return changing(this.scope, () => this.repository[method]!(...args));
						}
					: function (this: WatchedRepository, ...args: unknown[]) {
							// Looked up at each call: whatever replaces a method later (a test's spy) is called.
							return this.repository[method]!(...args);
						};
		}
		return [name, prototype];
	}),
) as Record<Watched, object>;

function watchedRepository(name: Watched, repository: unknown, scope: Scope): object {
	const wrapped = Object.create(PROTOTYPES[name]) as WatchedRepository;
	wrapped.repository = repository as WatchedRepository["repository"];
	wrapped.scope = scope;
	return wrapped;
}

function changing(scope: Scope, call: () => Promise<unknown>): Promise<unknown> {
	scope.cache.invalidate();
	if (scope.transaction) {
		scope.transaction.changedConfig = true;
		return call();
	}
	return call().finally(() => scope.cache.invalidate());
}
