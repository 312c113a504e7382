import type { AccountRecord, As2Store, CertificateRecord, PartnerRow, TenantRecord } from "@as2kit/core/store";
import type { VersionedCache } from "./versioned-cache.ts";
import { changedConfigIn, inTransaction } from "./watch-config-writes.ts";

/**
 * The configuration one message reads at every step (issue #20: on the sender, a partner's
 * certificates and the tenant's identities five times, the partner twice; on PostgreSQL 11 of
 * 39 queries per message), remembered for CONFIG_CACHE_TTL_MS. A stale read is bounded:
 * - a certificate deactivated, deleted or replaced on another instance may still be used (or a
 *   new one not yet used) for at most the TTL here, the bound API keys have;
 * - a partner, its master partner or the tenant's override edited on another instance: the
 *   previous effective configuration for at most the TTL;
 * - an account's plan (its limits, the wire captures' retention): the previous plan for at
 *   most the TTL.
 * Every change on this instance is seen at once (watch-config-writes.ts). Only what exists is
 * remembered: a partner, tenant or certificate created on another instance is found at once.
 *
 * `store` is the store the read would use: the engine's, or a transaction's (a transaction
 * that changed configuration reads its own changes, never the cache).
 */
export interface ConfigReads {
	/** store.certificates.listFor */
	certificatesOf(owner: { partnerId: string } | { identityOf: string }): Promise<CertificateRecord[]>;
	/** store.partners.findVisible */
	visiblePartner(tenantId: string, accountId: string, id: string): Promise<PartnerRow | null>;
	/** store.partners.findVisibleByAs2Id */
	visiblePartnerByAs2Id(tenantId: string, accountId: string, as2Id: string): Promise<PartnerRow | null>;
	/** store.accounts.get */
	account(id: string): Promise<AccountRecord | null>;
	/** store.tenants.get */
	tenant(accountId: string, id: string): Promise<TenantRecord | null>;
	/** store.tenants.findByAs2Id */
	tenantByAs2Id(as2Id: string): Promise<TenantRecord | null>;
}

const exists = (value: unknown) => (Array.isArray(value) ? value.length > 0 : value !== null);

export function configReads(cache: VersionedCache, store: As2Store): ConfigReads {
	const through = <V>(key: string, load: () => Promise<V>): Promise<V> =>
		changedConfigIn(store) ? load() : cache.through(key, load, exists, { share: !inTransaction(store) });
	return {
		certificatesOf: (owner) =>
			"partnerId" in owner
				? through(`certificates:partner:${owner.partnerId}`, () => store.certificates.listFor(owner))
				: through(`certificates:identities:${owner.identityOf}`, () => store.certificates.listFor(owner)),
		visiblePartner: (tenantId, accountId, id) =>
			through(`partner:${tenantId}:${accountId}:${id}`, () => store.partners.findVisible(tenantId, accountId, id)),
		visiblePartnerByAs2Id: (tenantId, accountId, as2Id) =>
			through(`partner-as2:${tenantId}:${accountId}:${as2Id}`, () =>
				store.partners.findVisibleByAs2Id(tenantId, accountId, as2Id),
			),
		account: (id) => through(`account:${id}`, () => store.accounts.get(id)),
		tenant: (accountId, id) => through(`tenant:${accountId}:${id}`, () => store.tenants.get(accountId, id)),
		tenantByAs2Id: (as2Id) => through(`tenant-as2:${as2Id}`, () => store.tenants.findByAs2Id(as2Id)),
	};
}
