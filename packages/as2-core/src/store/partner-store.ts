import type { Page, PageRequest } from "./pagination.ts";
import type {
	CertificateListFilter,
	CertificateRecord,
	PartnerListFilter,
	PartnerOverrideRecord,
	PartnerRecord,
	PartnerRow,
} from "./partner-records.ts";

/** Partners of tenants and master partners of accounts. Deleted partners are never returned. */
export interface PartnerStore {
	create(partner: PartnerRecord): Promise<void>;
	/** A tenant's own partner. */
	getForTenant(tenantId: string, id: string): Promise<PartnerRecord | null>;
	/** An account's master partner. */
	getMaster(accountId: string, id: string): Promise<PartnerRecord | null>;
	/**
	 * A tenant's partner or an inherited master partner (with the tenant's override), by id:
	 * what one tenant can see.
	 */
	findVisible(tenantId: string, accountId: string, id: string): Promise<PartnerRow | null>;
	/** Inbound routing by AS2-From (decisions.md): the tenant's partner first, else a master partner. */
	findVisibleByAs2Id(tenantId: string, accountId: string, as2Id: string): Promise<PartnerRow | null>;
	/** A tenant's own partners and, unless filtered out, the account's master partners; oldest first. */
	list(tenantId: string, accountId: string, filter: PartnerListFilter, page: PageRequest): Promise<Page<PartnerRow>>;
	listMasters(
		accountId: string,
		filter: Omit<PartnerListFilter, "type">,
		page: PageRequest,
	): Promise<Page<PartnerRecord>>;
	/** Partners that count against the plan: the account's tenant partners and master partners. */
	countForAccount(accountId: string): Promise<number>;
	update(
		id: string,
		patch: Partial<Omit<PartnerRecord, "id" | "accountId" | "tenantId" | "createdAt">>,
	): Promise<PartnerRecord | null>;
	/** Marks deleted (the history of messages keeps pointing at it); false when already gone. */
	softDelete(id: string, at: Date): Promise<boolean>;
	getOverride(tenantId: string, masterPartnerId: string): Promise<PartnerOverrideRecord | null>;
	putOverride(override: PartnerOverrideRecord): Promise<void>;
	deleteOverride(tenantId: string, masterPartnerId: string): Promise<boolean>;
}

export interface CertificateStore {
	create(certificate: CertificateRecord): Promise<void>;
	/** Any certificate of the account, not deleted; the service decides what a tenant may see. */
	get(accountId: string, id: string): Promise<CertificateRecord | null>;
	list(filter: CertificateListFilter, page: PageRequest): Promise<Page<CertificateRecord>>;
	/** Active or not, not deleted, newest first: a partner's or (partnerId null) a tenant's identities. */
	listFor(owner: { partnerId: string } | { identityOf: string }): Promise<CertificateRecord[]>;
	/** Uploaded certificates of the account (what the plan's certificate limit counts). */
	countUploaded(accountId: string): Promise<number>;
	update(
		id: string,
		patch: Partial<Pick<CertificateRecord, "active" | "activatedAt" | "name" | "usage" | "updatedAt">>,
	): Promise<CertificateRecord | null>;
	softDelete(id: string, at: Date): Promise<boolean>;
	/** Deactivates every certificate of a partner (the partner was deleted). */
	deactivateForPartner(partnerId: string, at: Date): Promise<number>;
	/** Active certificates expiring before `before`, not yet notified of `kind`, soonest first. */
	listUnnotified(kind: "expiring" | "expired", before: Date, limit: number): Promise<CertificateRecord[]>;
	/** Records the notification; true only for the first caller (exactly-once across instances). */
	markNotified(id: string, kind: "expiring" | "expired", at: Date): Promise<boolean>;
	/**
	 * The soonest expiry among the active, not deleted certificates of each owner: a tenant, or
	 * (tenantId null) an account's master partners; in no particular order.
	 */
	soonestExpiries(): Promise<CertificateExpiry[]>;
}

export interface CertificateExpiry {
	accountId: string;
	tenantId: string | null;
	expiresAt: Date;
}
