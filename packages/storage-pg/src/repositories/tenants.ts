import type { TenantRecord, TenantStore } from "@as2kit/core/store";
import { and, eq } from "drizzle-orm";
import type { Runner } from "../connection.ts";
import { tenants } from "../schema.ts";
import { pageOf, window } from "./pg-page.ts";
import { rawTable } from "./pg-raw-table.ts";

const toTenant = (row: typeof tenants.$inferSelect): TenantRecord => row as TenantRecord;
const first = ([row]: (typeof tenants.$inferSelect)[]) => (row ? toTenant(row) : null);

const RAW_TENANTS = rawTable(tenants);
const TENANTS_OF_ACCOUNT = `"account_id" = $1`;
const TENANTS_OF_IDS = `"account_id" = $1 and "id" = any($2::text[])`;
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
		// Every request of an account key without X-Tenant-ID reads the first tenant: prepared
		// statements (pg-raw-table.ts), one text for any number of ids.
		list: async (accountId, page, filter) => {
			const [where, params] = filter?.ids
				? [TENANTS_OF_IDS, [accountId, [...filter.ids]]]
				: [TENANTS_OF_ACCOUNT, [accountId]];
			const { limit, offset } = window(page);
			const rows = await runner.query<Record<string, unknown> & { total: string }>(
				`select ${RAW_TENANTS.columns}, count(*) over () as "total" from "tenants" where ${where}
				order by "created_at", "id" limit $${params.length + 1} offset $${params.length + 2}`,
				[...params, limit, offset],
			);
			return pageOf(
				rows.map((row) => ({ row, total: Number(row.total) })),
				({ row }) => toTenant(RAW_TENANTS.fromRow(row)),
				offset,
				async () => {
					const [counted] = await runner.query<{ n: string }>(
						`select count(*) as "n" from "tenants" where ${where}`,
						params,
					);
					return Number(counted?.n ?? 0);
				},
			);
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
