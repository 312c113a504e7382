import type {
	ConnectionStatus,
	PartnerListFilter,
	PartnerOverrideRecord,
	PartnerRecord,
	PartnerRow,
	PartnerStore,
} from "@as2kit/core/store";
import { and, asc, count, eq, isNull, or, type SQL, sql } from "drizzle-orm";
import type { Runner } from "../connection.ts";
import { partnerOverrides, partners } from "../schema.ts";
import { pageOf, totalOver, window } from "./pg-page.ts";
import { rawTable } from "./pg-raw-table.ts";
import { containsIgnoringCase } from "./pg-search.ts";
import { lockPlanLimits } from "./plan-limit-lock.ts";

type PartnerColumns = typeof partners.$inferSelect;
type OverrideColumns = typeof partnerOverrides.$inferSelect;

function toPartner(row: PartnerColumns): PartnerRecord {
	const status = row.connectionStatus;
	return {
		...row,
		connectionStatus: status ? ({ ...status, lastTest: new Date(status.lastTest) } as ConnectionStatus) : null,
	} as PartnerRecord;
}

function fromPartner(partner: Partial<PartnerRecord>): Partial<typeof partners.$inferInsert> {
	const { connectionStatus, ...rest } = partner;
	if (connectionStatus === undefined) return rest;
	return {
		...rest,
		connectionStatus: connectionStatus && { ...connectionStatus, lastTest: connectionStatus.lastTest.toISOString() },
	};
}

const toOverride = (row: OverrideColumns): PartnerOverrideRecord => row;

const toRow = (row: { partner: PartnerColumns; override: OverrideColumns | null }): PartnerRow => ({
	partner: toPartner(row.partner),
	override: row.override && toOverride(row.override),
});

// Every message reads its partner: prepared statements on the hot path (pg-raw-table.ts), as
// storage-sqlite's. The override's columns are named apart (o_…) from the partner's.
const PARTNERS = rawTable(partners);
const OVERRIDES = rawTable(partnerOverrides);
const VISIBLE = `select ${PARTNERS.aliasedColumns("p", "")}, ${OVERRIDES.aliasedColumns("o", "o_")} from "partners" "p"
	left join "partner_overrides" "o" on "o"."master_partner_id" = "p"."id" and "o"."tenant_id" = $1`;
const VISIBLE_TO = `("p"."tenant_id" = $1 or ("p"."tenant_id" is null and "p"."account_id" = $2)) and "p"."deleted_at" is null`;
const VISIBLE_BY_ID = `${VISIBLE} where "p"."id" = $3 and ${VISIBLE_TO}`;
const VISIBLE_BY_AS2_ID = `${VISIBLE} where "p"."as2_id" = $3 and ${VISIBLE_TO} order by "p"."tenant_id" is null limit 1`;

/** A partner left-joined with its override (VISIBLE): null override columns where there is none. */
function fromJoinRow(row: Record<string, unknown>): PartnerRow {
	return toRow({
		partner: PARTNERS.fromRow(row),
		override: row.o_master_partner_id == null ? null : OVERRIDES.fromRow(row, "o_"),
	});
}

const live = isNull(partners.deletedAt);
const masterOf = (accountId: string) => and(isNull(partners.tenantId), eq(partners.accountId, accountId))!;
/** A tenant's own partners, or the account's master partners: what one tenant can see. */
const visibleTo = (tenantId: string, accountId: string) => or(eq(partners.tenantId, tenantId), masterOf(accountId))!;
const overrideOf = (tenantId: string) =>
	and(eq(partnerOverrides.masterPartnerId, partners.id), eq(partnerOverrides.tenantId, tenantId));
const oldestFirst = [asc(partners.createdAt), asc(partners.id)];

/** The owners `type` asks for; search and active apply to the effective (overridden) name and flag. */
function listConditions(tenantId: string, accountId: string, filter: PartnerListFilter): SQL {
	const owner =
		filter.type === "tenant"
			? eq(partners.tenantId, tenantId)
			: filter.type === "inherited"
				? masterOf(accountId)
				: visibleTo(tenantId, accountId);
	const conditions: SQL[] = [live, owner];
	if (filter.search) {
		const effectiveName = sql`coalesce(${partnerOverrides.name}, ${partners.name})`;
		conditions.push(containsIgnoringCase(filter.search, effectiveName, partners.as2Id));
	}
	if (filter.active !== undefined)
		conditions.push(sql`coalesce(${partnerOverrides.active}, ${partners.active}) = ${filter.active}`);
	return and(...conditions)!;
}

export function createPartnerStore(runner: Runner): PartnerStore {
	return {
		create: async (partner) => {
			await runner.run((db) => db.insert(partners).values(fromPartner(partner) as typeof partners.$inferInsert));
		},
		getForTenant: async (tenantId, id) => {
			const [row] = await runner.run((db) =>
				db
					.select()
					.from(partners)
					.where(and(eq(partners.id, id), eq(partners.tenantId, tenantId), live)),
			);
			return row ? toPartner(row) : null;
		},
		getMaster: async (accountId, id) => {
			const [row] = await runner.run((db) =>
				db
					.select()
					.from(partners)
					.where(and(eq(partners.id, id), masterOf(accountId), live)),
			);
			return row ? toPartner(row) : null;
		},
		findVisible: async (tenantId, accountId, id) => {
			const [row] = await runner.query<Record<string, unknown>>(VISIBLE_BY_ID, [tenantId, accountId, id]);
			return row ? fromJoinRow(row) : null;
		},
		// The tenant's own partner wins over a master partner of the same AS2 id.
		findVisibleByAs2Id: async (tenantId, accountId, as2Id) => {
			const [row] = await runner.query<Record<string, unknown>>(VISIBLE_BY_AS2_ID, [tenantId, accountId, as2Id]);
			return row ? fromJoinRow(row) : null;
		},
		list: (tenantId, accountId, filter, page) =>
			runner.run(async (db) => {
				const where = listConditions(tenantId, accountId, filter);
				const { limit, offset } = window(page);
				const rows = await db
					.select({ partner: partners, override: partnerOverrides, total: totalOver() })
					.from(partners)
					.leftJoin(partnerOverrides, overrideOf(tenantId))
					.where(where)
					.orderBy(...oldestFirst)
					.limit(limit)
					.offset(offset);
				return pageOf(rows, toRow, offset, async () => {
					const [counted] = await db
						.select({ n: count() })
						.from(partners)
						.leftJoin(partnerOverrides, overrideOf(tenantId))
						.where(where);
					return counted?.n ?? 0;
				});
			}),
		listMasters: (accountId, filter, page) =>
			runner.run(async (db) => {
				const conditions: SQL[] = [live, masterOf(accountId)];
				if (filter.search) conditions.push(containsIgnoringCase(filter.search, partners.name, partners.as2Id));
				if (filter.active !== undefined) conditions.push(eq(partners.active, filter.active));
				const where = and(...conditions);
				const { limit, offset } = window(page);
				const rows = await db
					.select({ partner: partners, total: totalOver() })
					.from(partners)
					.where(where)
					.orderBy(...oldestFirst)
					.limit(limit)
					.offset(offset);
				return pageOf(
					rows,
					(row) => toPartner(row.partner),
					offset,
					async () => (await db.select({ n: count() }).from(partners).where(where))[0]?.n ?? 0,
				);
			}),
		countForAccount: (accountId) =>
			runner.atomic(async (db) => {
				await lockPlanLimits(db, accountId);
				const [counted] = await db
					.select({ n: count() })
					.from(partners)
					.where(and(eq(partners.accountId, accountId), live));
				return counted?.n ?? 0;
			}),
		update: async (id, patch) => {
			const [row] = await runner.run((db) =>
				db
					.update(partners)
					.set(fromPartner(patch))
					.where(and(eq(partners.id, id), live))
					.returning(),
			);
			return row ? toPartner(row) : null;
		},
		softDelete: async (id, at) => {
			const deleted = await runner.run((db) =>
				db
					.update(partners)
					.set({ deletedAt: at, active: false, updatedAt: at })
					.where(and(eq(partners.id, id), live))
					.returning({ id: partners.id }),
			);
			return deleted.length === 1;
		},
		getOverride: async (tenantId, masterPartnerId) => {
			const [row] = await runner.run((db) =>
				db
					.select()
					.from(partnerOverrides)
					.where(and(eq(partnerOverrides.tenantId, tenantId), eq(partnerOverrides.masterPartnerId, masterPartnerId))),
			);
			return row ? toOverride(row) : null;
		},
		putOverride: async (override) => {
			await runner.run((db) =>
				db
					.insert(partnerOverrides)
					.values(override)
					.onConflictDoUpdate({
						target: [partnerOverrides.tenantId, partnerOverrides.masterPartnerId],
						set: {
							name: override.name,
							active: override.active,
							settings: override.settings,
							updatedAt: override.updatedAt,
						},
					}),
			);
		},
		deleteOverride: async (tenantId, masterPartnerId) => {
			const deleted = await runner.run((db) =>
				db
					.delete(partnerOverrides)
					.where(and(eq(partnerOverrides.tenantId, tenantId), eq(partnerOverrides.masterPartnerId, masterPartnerId)))
					.returning({ tenantId: partnerOverrides.tenantId }),
			);
			return deleted.length === 1;
		},
	};
}
