import type { TenantRecord, TenantStore } from "@as2kit/core/store";
import { and, asc, count, eq, inArray, type SQL } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { rawTable } from "../raw-table.ts";
import { tenants } from "../schema.ts";
import { orNull } from "./accounts.ts";
import { window } from "./pagination.ts";

const RAW = rawTable(tenants);
const BY_ID = `select ${RAW.columns} from "tenants" where "account_id" = ? and "id" = ?`;
const BY_AS2_ID = `select ${RAW.columns} from "tenants" where "as2_id" = ?`;
const one = (row: unknown) => (row ? toTenant(RAW.fromRow(row as Record<string, unknown>)) : null);
const toTenant = (row: typeof tenants.$inferSelect): TenantRecord => row as TenantRecord;

export function createTenantStore(exec: Exec): TenantStore {
	return {
		create: (tenant) => exec((db) => void db.insert(tenants).values(tenant).run()),
		// Every request and every inbound message reads a tenant: plain SQL on the hot path (raw-table.ts).
		get: (accountId, id) => exec((db) => one(db.$client.prepare(BY_ID).get(accountId, id))),
		findByAs2Id: (as2Id) => exec((db) => one(db.$client.prepare(BY_AS2_ID).get(as2Id))),
		findBySlug: (accountId, slug) =>
			exec((db) =>
				db
					.select()
					.from(tenants)
					.where(and(eq(tenants.accountId, accountId), eq(tenants.slug, slug)))
					.get(),
			).then(orNull(toTenant)),
		list: (accountId, page, filter) =>
			exec((db) => {
				const conditions: SQL[] = [eq(tenants.accountId, accountId)];
				if (filter?.ids) conditions.push(inArray(tenants.id, [...filter.ids]));
				const where = and(...conditions);
				const { limit, offset } = window(page);
				const items = db
					.select()
					.from(tenants)
					.where(where)
					.orderBy(asc(tenants.createdAt), asc(tenants.id))
					.limit(limit)
					.offset(offset)
					.all();
				const total = db.select({ n: count() }).from(tenants).where(where).get()?.n ?? 0;
				return { items: items.map(toTenant), total };
			}),
		update: (accountId, id, patch) =>
			exec((db) =>
				db
					.update(tenants)
					.set(patch)
					.where(and(eq(tenants.accountId, accountId), eq(tenants.id, id)))
					.returning()
					.get(),
			).then(orNull(toTenant)),
	};
}
