import type { TenantRecord, TenantStore } from "@as2kit/core/store";
import { and, asc, count, eq, inArray, type SQL } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { tenants } from "../schema.ts";
import { orNull } from "./accounts.ts";
import { window } from "./pagination.ts";

const toTenant = (row: typeof tenants.$inferSelect): TenantRecord => row as TenantRecord;

export function createTenantStore(exec: Exec): TenantStore {
	return {
		create: (tenant) => exec((db) => void db.insert(tenants).values(tenant).run()),
		get: (accountId, id) =>
			exec((db) =>
				db
					.select()
					.from(tenants)
					.where(and(eq(tenants.accountId, accountId), eq(tenants.id, id)))
					.get(),
			).then(orNull(toTenant)),
		findByAs2Id: (as2Id) =>
			exec((db) => db.select().from(tenants).where(eq(tenants.as2Id, as2Id)).get()).then(orNull(toTenant)),
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
