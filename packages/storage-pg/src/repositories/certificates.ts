import type { CertificateListFilter, CertificateRecord, CertificateStore } from "@as2kit/core/store";
import { and, asc, count, desc, eq, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import type { Runner } from "../connection.ts";
import { certificates } from "../schema.ts";
import { pageOf, totalOver, window } from "./pg-page.ts";
import { rawTable } from "./pg-raw-table.ts";
import { lockPlanLimits } from "./plan-limit-lock.ts";

const toCertificate = (row: typeof certificates.$inferSelect): CertificateRecord => row as CertificateRecord;
// Signing, encrypting and verifying read a partner's or a tenant's certificates several times
// per message: prepared statements (pg-raw-table.ts), as storage-sqlite's listFor.
const RAW = rawTable(certificates);
const NEWEST_FIRST = `order by "not_before" desc, "created_at" desc, "id" desc`;
const OF_PARTNER = `select ${RAW.columns} from "certificates" where "deleted_at" is null and "partner_id" = $1 ${NEWEST_FIRST}`;
const IDENTITIES_OF = `select ${RAW.columns} from "certificates"
	where "deleted_at" is null and "tenant_id" = $1 and "type" = 'identity' ${NEWEST_FIRST}`;
const live = isNull(certificates.deletedAt);
/** CertificateStore.soonestExpiries, grouped by owner (min() of a not-null column over a non-empty group). */
const EXPIRY = {
	accountId: certificates.accountId,
	tenantId: certificates.tenantId,
	expiresAt: sql<Date>`min(${certificates.expiresAt})`.mapWith(certificates.expiresAt),
};
const NOTIFIED = { expiring: certificates.expiringNotifiedAt, expired: certificates.expiredNotifiedAt } as const;

function listConditions(filter: CertificateListFilter): SQL {
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
	return and(...conditions)!;
}

export function createCertificateStore(runner: Runner): CertificateStore {
	return {
		create: async (certificate) => {
			await runner.run((db) => db.insert(certificates).values(certificate));
		},
		get: async (accountId, id) => {
			const [row] = await runner.run((db) =>
				db
					.select()
					.from(certificates)
					.where(and(eq(certificates.id, id), eq(certificates.accountId, accountId), live)),
			);
			return row ? toCertificate(row) : null;
		},
		list: (filter, page) =>
			runner.run(async (db) => {
				const where = listConditions(filter);
				const { limit, offset } = window(page);
				const rows = await db
					.select({ certificate: certificates, total: totalOver() })
					.from(certificates)
					.where(where)
					.orderBy(desc(certificates.createdAt), desc(certificates.id))
					.limit(limit)
					.offset(offset);
				return pageOf(
					rows,
					(row) => toCertificate(row.certificate),
					offset,
					async () => (await db.select({ n: count() }).from(certificates).where(where))[0]?.n ?? 0,
				);
			}),
		listFor: async (owner) => {
			const rows =
				"partnerId" in owner
					? await runner.query<Record<string, unknown>>(OF_PARTNER, [owner.partnerId])
					: await runner.query<Record<string, unknown>>(IDENTITIES_OF, [owner.identityOf]);
			return rows.map((row) => toCertificate(RAW.fromRow(row)));
		},
		countUploaded: (accountId) =>
			runner.atomic(async (db) => {
				await lockPlanLimits(db, accountId);
				const [counted] = await db
					.select({ n: count() })
					.from(certificates)
					.where(and(eq(certificates.accountId, accountId), eq(certificates.origin, "uploaded"), live));
				return counted?.n ?? 0;
			}),
		update: async (id, patch) => {
			const [row] = await runner.run((db) =>
				db
					.update(certificates)
					.set(patch)
					.where(and(eq(certificates.id, id), live))
					.returning(),
			);
			return row ? toCertificate(row) : null;
		},
		softDelete: async (id, at) => {
			const deleted = await runner.run((db) =>
				db
					.update(certificates)
					.set({ deletedAt: at, active: false, updatedAt: at })
					.where(and(eq(certificates.id, id), live))
					.returning({ id: certificates.id }),
			);
			return deleted.length === 1;
		},
		deactivateForPartner: async (partnerId, at) => {
			const deactivated = await runner.run((db) =>
				db
					.update(certificates)
					.set({ active: false, updatedAt: at })
					.where(and(eq(certificates.partnerId, partnerId), eq(certificates.active, true), live))
					.returning({ id: certificates.id }),
			);
			return deactivated.length;
		},
		listUnnotified: async (kind, before, limit) => {
			const rows = await runner.run((db) =>
				db
					.select()
					.from(certificates)
					.where(and(live, eq(certificates.active, true), lt(certificates.expiresAt, before), isNull(NOTIFIED[kind])))
					.orderBy(asc(certificates.expiresAt), asc(certificates.id))
					.limit(limit),
			);
			return rows.map(toCertificate);
		},
		markNotified: async (id, kind, at) => {
			// Conditional on the mark still being unset: of racing instances, one updates the row.
			const marked = await runner.run((db) =>
				db
					.update(certificates)
					.set(kind === "expiring" ? { expiringNotifiedAt: at } : { expiredNotifiedAt: at })
					.where(and(eq(certificates.id, id), isNull(NOTIFIED[kind])))
					.returning({ id: certificates.id }),
			);
			return marked.length === 1;
		},
		soonestExpiries: () =>
			runner.run((db) =>
				db
					.select(EXPIRY)
					.from(certificates)
					.where(and(live, eq(certificates.active, true)))
					.groupBy(certificates.accountId, certificates.tenantId),
			),
	};
}
