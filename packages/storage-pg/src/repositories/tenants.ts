import type { TenantRecord, TenantStore } from "@as2kit/core/store";
import { and, asc, count, eq, inArray, type SQL } from "drizzle-orm";
import type { Runner } from "../connection.ts";
import { tenants } from "../schema.ts";
import { pageOf, totalOver, window } from "./pg-page.ts";
import { rawTable } from "./pg-raw-table.ts";

const toTenant = (row: typeof tenants.$inferSelect): TenantRecord => row as TenantRecord;
const first = ([row]: (typeof tenants.$inferSelect)[]) => (row ? toTenant(row) : null);

const RAW_TENANTS = rawTable(tenants);
const TENANT_BY_ID = `select ${RAW_TENANTS.columns} from "tenants" where "id" = $1 and "account_id" = $2`;

export function createTenantStore(runner: Runner): TenantStore {
	return {
		create: async (tenant) => {
			await runner.run((db) => db.insert(tenants).values(tenant));
		},
		// Every API request reads its tenant: a prepared statement on the hot path (pg-raw-table.ts).
		get: (accountId, id) =>
			runner
				.query<Record<string, unknown>>(TENANT_BY_ID, [id, accountId])
				.then((rows) => first(rows.map((row) => RAW_TENANTS.fromRow(row)))),
		findByAs2Id: (as2Id) => runner.run((db) => db.select().from(tenants).where(eq(tenants.as2Id, as2Id))).then(first),
		findBySlug: (accountId, slug) =>
			runner
				.run((db) =>
					db
						.select()
						.from(tenants)
						.where(and(eq(tenants.accountId, accountId), eq(tenants.slug, slug))),
				)
				.then(first),
		list: (accountId, page, filter) => {
			const conditions: SQL[] = [eq(tenants.accountId, accountId)];
			if (filter?.ids) conditions.push(inArray(tenants.id, [...filter.ids]));
			const where = and(...conditions);
			return runner.run(async (db) => {
				const { limit, offset } = window(page);
				const rows = await db
					.select({ tenant: tenants, total: totalOver() })
					.from(tenants)
					.where(where)
					.orderBy(asc(tenants.createdAt), asc(tenants.id))
					.limit(limit)
					.offset(offset);
				return pageOf(
					rows,
					(row) => toTenant(row.tenant),
					offset,
					async () => (await db.select({ n: count() }).from(tenants).where(where))[0]?.n ?? 0,
				);
			});
		},
		update: (accountId, id, patch) =>
			runner
				.run((db) =>
					db
						.update(tenants)
						.set(patch)
						.where(and(eq(tenants.accountId, accountId), eq(tenants.id, id)))
						.returning(),
				)
				.then(first),
	};
}
