import type { CertificateRecord, CertificateStore } from "@as2kit/core/store";
import { and, count, desc, eq, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import type { CertificateListCache } from "../certificate-list-cache.ts";
import type { Exec } from "../connection.ts";
import { rawTable } from "../raw-table.ts";
import { certificates } from "../schema.ts";
import { window } from "./pagination.ts";

const RAW = rawTable(certificates);
const NEWEST_FIRST = `order by "not_before" desc, "created_at" desc, "id" desc`;
const OF_PARTNER = `select ${RAW.columns} from "certificates" where "deleted_at" is null and "partner_id" = ? ${NEWEST_FIRST}`;
const IDENTITIES_OF = `select ${RAW.columns} from "certificates"
	where "deleted_at" is null and "tenant_id" = ? and "type" = 'identity' ${NEWEST_FIRST}`;
const toCertificate = (row: typeof certificates.$inferSelect): CertificateRecord => row as CertificateRecord;
const live = isNull(certificates.deletedAt);
/** CertificateStore.soonestExpiries, grouped by owner (min() of a not-null column over a non-empty group). */
const EXPIRY = {
	accountId: certificates.accountId,
	tenantId: certificates.tenantId,
	expiresAt: sql<Date>`min(${certificates.expiresAt})`.mapWith(certificates.expiresAt),
};
const NOTIFIED = { expiring: certificates.expiringNotifiedAt, expired: certificates.expiredNotifiedAt } as const;

/** `lists`: the cache of listFor, for the store outside transactions only (null inside one). */
export function createCertificateStore(exec: Exec, lists: CertificateListCache | null): CertificateStore {
	return {
		create: (certificate) => exec((db) => void db.insert(certificates).values(certificate).run()),
		get: (accountId, id) =>
			exec((db) => {
				const row = db
					.select()
					.from(certificates)
					.where(and(eq(certificates.id, id), eq(certificates.accountId, accountId), live))
					.get();
				return row ? toCertificate(row) : null;
			}),
		list: (filter, page) =>
			exec((db) => {
				const owner = filter.includeMaster
					? or(
							eq(certificates.tenantId, filter.tenantId),
							and(isNull(certificates.tenantId), eq(certificates.accountId, filter.includeMaster.accountId)),
						)!
					: eq(certificates.tenantId, filter.tenantId);
				const conditions: SQL[] = [live, owner];
				if (filter.partnerId) conditions.push(eq(certificates.partnerId, filter.partnerId));
				if (filter.type) conditions.push(eq(certificates.type, filter.type));
				if (filter.active !== undefined) conditions.push(eq(certificates.active, filter.active));
				const where = and(...conditions);
				const { limit, offset } = window(page);
				const items = db
					.select()
					.from(certificates)
					.where(where)
					.orderBy(desc(certificates.createdAt), desc(certificates.id))
					.limit(limit)
					.offset(offset)
					.all()
					.map(toCertificate);
				const total = db.select({ n: count() }).from(certificates).where(where).get()?.n ?? 0;
				return { items, total };
			}),
		// Every message reads its certificates: plain SQL on the hot path (raw-table.ts), kept in
		// memory while none changes (certificate-list-cache.ts).
		listFor: (owner) =>
			exec((db) => {
				const [sql, id, key] =
					"partnerId" in owner
						? [OF_PARTNER, owner.partnerId, `partner:${owner.partnerId}`]
						: [IDENTITIES_OF, owner.identityOf, `identities:${owner.identityOf}`];
				const read = () =>
					(db.$client.prepare(sql).all(id) as Record<string, unknown>[]).map((row) => toCertificate(RAW.fromRow(row)));
				return lists ? lists.get(db.$client, key, read) : read();
			}),
		countUploaded: (accountId) =>
			exec(
				(db) =>
					db
						.select({ n: count() })
						.from(certificates)
						.where(and(eq(certificates.accountId, accountId), eq(certificates.origin, "uploaded"), live))
						.get()?.n ?? 0,
			),
		update: (id, patch) =>
			exec((db) => {
				const row = db
					.update(certificates)
					.set(patch)
					.where(and(eq(certificates.id, id), live))
					.returning()
					.get();
				return row ? toCertificate(row) : null;
			}),
		softDelete: (id, at) =>
			exec(
				(db) =>
					db
						.update(certificates)
						.set({ deletedAt: at, active: false, updatedAt: at })
						.where(and(eq(certificates.id, id), live))
						.run().changes === 1,
			),
		deactivateForPartner: (partnerId, at) =>
			exec(
				(db) =>
					db
						.update(certificates)
						.set({ active: false, updatedAt: at })
						.where(and(eq(certificates.partnerId, partnerId), eq(certificates.active, true), live))
						.run().changes,
			),
		listUnnotified: (kind, before, limit) =>
			exec((db) =>
				db
					.select()
					.from(certificates)
					.where(and(live, eq(certificates.active, true), lt(certificates.expiresAt, before), isNull(NOTIFIED[kind])))
					.orderBy(certificates.expiresAt)
					.limit(limit)
					.all()
					.map(toCertificate),
			),
		markNotified: (id, kind, at) =>
			exec(
				(db) =>
					db
						.update(certificates)
						.set(kind === "expiring" ? { expiringNotifiedAt: at } : { expiredNotifiedAt: at })
						.where(and(eq(certificates.id, id), isNull(NOTIFIED[kind])))
						.run().changes === 1,
			),
		soonestExpiries: () =>
			exec((db) =>
				db
					.select(EXPIRY)
					.from(certificates)
					.where(and(live, eq(certificates.active, true)))
					.groupBy(certificates.accountId, certificates.tenantId)
					.all(),
			),
	};
}
