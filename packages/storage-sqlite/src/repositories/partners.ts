import type {
	ConnectionStatus,
	PartnerOverrideRecord,
	PartnerRecord,
	PartnerRow,
	PartnerStore,
} from "@as2kit/core/store";
import { and, asc, count, eq, isNull, or, type SQL, sql } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { rawTable } from "../raw-table.ts";
import { partnerOverrides, partners } from "../schema.ts";
import { window } from "./pagination.ts";

type PartnerRow_ = typeof partners.$inferSelect;

function toPartner(row: PartnerRow_): PartnerRecord {
	const status = row.connectionStatus;
	return {
		...row,
		connectionStatus: status ? ({ ...status, lastTest: new Date(status.lastTest) } as ConnectionStatus) : null,
	} as PartnerRecord;
}

function fromPartner(partner: Partial<PartnerRecord>) {
	const { connectionStatus, ...rest } = partner;
	return {
		...rest,
		...(connectionStatus !== undefined
			? {
					connectionStatus: connectionStatus && {
						...connectionStatus,
						lastTest: connectionStatus.lastTest.toISOString(),
					},
				}
			: {}),
	};
}

const toOverride = (row: typeof partnerOverrides.$inferSelect): PartnerOverrideRecord => row;

const live = isNull(partners.deletedAt);
const overrideJoin = (tenantId: string) =>
	and(eq(partnerOverrides.masterPartnerId, partners.id), eq(partnerOverrides.tenantId, tenantId));
/** A tenant's own partners, or the account's master partners: what one tenant can see. */
const visibleTo = (tenantId: string, accountId: string) =>
	or(eq(partners.tenantId, tenantId), and(isNull(partners.tenantId), eq(partners.accountId, accountId)))!;

function toRow(row: {
	partners: PartnerRow_;
	partner_overrides: typeof partnerOverrides.$inferSelect | null;
}): PartnerRow {
	return {
		partner: toPartner(row.partners),
		override: row.partner_overrides ? toOverride(row.partner_overrides) : null,
	};
}

/** Case-insensitive substring search; LIKE wildcards in the term are matched literally. */
function searchOn(term: string, ...columns: SQL[]): SQL {
	const pattern = `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
	return or(...columns.map((column) => sql`lower(${column}) LIKE ${pattern} ESCAPE '\\'`))!;
}

const PARTNERS = rawTable(partners);
const OVERRIDES = rawTable(partnerOverrides);
const VISIBLE = `select ${PARTNERS.qualifiedColumns("p")}, ${OVERRIDES.qualifiedColumns("o")} from "partners" "p"
	left join "partner_overrides" "o" on "o"."master_partner_id" = "p"."id" and "o"."tenant_id" = ?`;
const VISIBLE_TO = `("p"."tenant_id" = ? or ("p"."tenant_id" is null and "p"."account_id" = ?)) and "p"."deleted_at" is null`;
const VISIBLE_BY_ID = `${VISIBLE} where "p"."id" = ? and ${VISIBLE_TO}`;
const VISIBLE_BY_AS2_ID = `${VISIBLE} where "p"."as2_id" = ? and ${VISIBLE_TO} order by "p"."tenant_id" is null limit 1`;

/** A partner left-joined with its override, read as one array: the partner's columns, then the override's. */
function fromJoinRow(values: unknown[]): PartnerRow {
	const overridden = values[PARTNERS.width] !== null;
	return {
		partner: toPartner(PARTNERS.fromArray(values)),
		override: overridden ? toOverride(OVERRIDES.fromArray(values, PARTNERS.width)) : null,
	};
}

export function createPartnerStore(exec: Exec): PartnerStore {
	return {
		create: (partner) =>
			exec(
				(db) =>
					void db
						.insert(partners)
						.values(fromPartner(partner) as PartnerRow_)
						.run(),
			),
		getForTenant: (tenantId, id) =>
			exec((db) => {
				const row = db
					.select()
					.from(partners)
					.where(and(eq(partners.id, id), eq(partners.tenantId, tenantId), live))
					.get();
				return row ? toPartner(row) : null;
			}),
		getMaster: (accountId, id) =>
			exec((db) => {
				const row = db
					.select()
					.from(partners)
					.where(and(eq(partners.id, id), eq(partners.accountId, accountId), isNull(partners.tenantId), live))
					.get();
				return row ? toPartner(row) : null;
			}),
		// Every message reads its partner: plain SQL on the hot path (raw-table.ts).
		findVisible: (tenantId, accountId, id) =>
			exec((db) => {
				const row = db.$client.prepare(VISIBLE_BY_ID).raw(true).get(tenantId, id, tenantId, accountId) as
					| unknown[]
					| undefined;
				return row ? fromJoinRow(row) : null;
			}),
		findVisibleByAs2Id: (tenantId, accountId, as2Id) =>
			exec((db) => {
				// The tenant's own partner wins over a master partner of the same AS2 id.
				const row = db.$client.prepare(VISIBLE_BY_AS2_ID).raw(true).get(tenantId, as2Id, tenantId, accountId) as
					| unknown[]
					| undefined;
				return row ? fromJoinRow(row) : null;
			}),
		list: (tenantId, accountId, filter, page) =>
			exec((db) => {
				const conditions: SQL[] = [live];
				if (filter.type === "tenant") conditions.push(eq(partners.tenantId, tenantId));
				else if (filter.type === "inherited")
					conditions.push(and(isNull(partners.tenantId), eq(partners.accountId, accountId))!);
				else conditions.push(visibleTo(tenantId, accountId));
				const effectiveName = sql`coalesce(${partnerOverrides.name}, ${partners.name})`;
				const effectiveActive = sql`coalesce(${partnerOverrides.active}, ${partners.active})`;
				if (filter.search) conditions.push(searchOn(filter.search, effectiveName, sql`${partners.as2Id}`));
				if (filter.active !== undefined) conditions.push(sql`${effectiveActive} = ${filter.active ? 1 : 0}`);
				const where = and(...conditions);
				const { limit, offset } = window(page);
				const items = db
					.select()
					.from(partners)
					.leftJoin(partnerOverrides, overrideJoin(tenantId))
					.where(where)
					.orderBy(asc(partners.createdAt), asc(partners.id))
					.limit(limit)
					.offset(offset)
					.all()
					.map(toRow);
				const total =
					db.select({ n: count() }).from(partners).leftJoin(partnerOverrides, overrideJoin(tenantId)).where(where).get()
						?.n ?? 0;
				return { items, total };
			}),
		listMasters: (accountId, filter, page) =>
			exec((db) => {
				const conditions: SQL[] = [live, isNull(partners.tenantId), eq(partners.accountId, accountId)];
				if (filter.search) conditions.push(searchOn(filter.search, sql`${partners.name}`, sql`${partners.as2Id}`));
				if (filter.active !== undefined) conditions.push(eq(partners.active, filter.active));
				const where = and(...conditions);
				const { limit, offset } = window(page);
				const items = db
					.select()
					.from(partners)
					.where(where)
					.orderBy(asc(partners.createdAt), asc(partners.id))
					.limit(limit)
					.offset(offset)
					.all()
					.map(toPartner);
				const total = db.select({ n: count() }).from(partners).where(where).get()?.n ?? 0;
				return { items, total };
			}),
		countForAccount: (accountId) =>
			exec(
				(db) =>
					db
						.select({ n: count() })
						.from(partners)
						.where(and(eq(partners.accountId, accountId), live))
						.get()?.n ?? 0,
			),
		update: (id, patch) =>
			exec((db) => {
				const row = db
					.update(partners)
					.set(fromPartner(patch))
					.where(and(eq(partners.id, id), live))
					.returning()
					.get();
				return row ? toPartner(row) : null;
			}),
		softDelete: (id, at) =>
			exec(
				(db) =>
					db
						.update(partners)
						.set({ deletedAt: at, active: false, updatedAt: at })
						.where(and(eq(partners.id, id), live))
						.run().changes === 1,
			),
		getOverride: (tenantId, masterPartnerId) =>
			exec((db) => {
				const row = db
					.select()
					.from(partnerOverrides)
					.where(and(eq(partnerOverrides.tenantId, tenantId), eq(partnerOverrides.masterPartnerId, masterPartnerId)))
					.get();
				return row ? toOverride(row) : null;
			}),
		putOverride: (override) =>
			exec(
				(db) =>
					void db
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
						})
						.run(),
			),
		deleteOverride: (tenantId, masterPartnerId) =>
			exec(
				(db) =>
					db
						.delete(partnerOverrides)
						.where(and(eq(partnerOverrides.tenantId, tenantId), eq(partnerOverrides.masterPartnerId, masterPartnerId)))
						.run().changes === 1,
			),
	};
}
