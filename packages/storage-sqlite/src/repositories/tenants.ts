import type { TenantRecord, TenantStore } from "@as2kit/core/store";
import { and, eq } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { rawTable } from "../raw-table.ts";
import { tenants } from "../schema.ts";
import { orNull } from "./accounts.ts";
import { window } from "./pagination.ts";

const RAW = rawTable(tenants);
const BY_ID = `select ${RAW.columns} from "tenants" where "account_id" = ? and "id" = ?`;
const BY_AS2_ID = `select ${RAW.columns} from "tenants" where "as2_id" = ?`;
const tenantOf = (row: unknown) => (row ? toTenant(RAW.fromRow(row as Record<string, unknown>)) : null);
const toTenant = (row: typeof tenants.$inferSelect): TenantRecord => row as TenantRecord;

/** The tenants of `exec`; `one` runs the reads of one statement (connection.ts, `runStatement`). */
export function createTenantStore(exec: Exec, one: Exec = exec): TenantStore {
	return {
		create: (tenant) => exec((db) => void db.insert(tenants).values(tenant).run()),
		// Every request and every inbound message reads a tenant: plain SQL on the hot path (raw-table.ts).
		get: (accountId, id) => one((db) => tenantOf(db.$client.prepare(BY_ID).get(accountId, id))),
		findByAs2Id: (as2Id) => one((db) => tenantOf(db.$client.prepare(BY_AS2_ID).get(as2Id))),
		findBySlug: (accountId, slug) =>
			exec((db) =>
				db
					.select()
					.from(tenants)
					.where(and(eq(tenants.accountId, accountId), eq(tenants.slug, slug)))
					.get(),
			).then(orNull(toTenant)),
		// Every request of an account key without X-Tenant-ID reads the first tenant: plain SQL.
		list: (accountId, page, filter) =>
			exec((db) => {
				const ids = filter?.ids ? [...filter.ids] : null;
				const where = ids
					? `"account_id" = ? and "id" in (${ids.map(() => "?").join(", ") || "null"})`
					: `"account_id" = ?`;
				const params = ids ? [accountId, ...ids] : [accountId];
				const { limit, offset } = window(page);
				const items = db.$client
					.prepare(`select ${RAW.columns} from "tenants" where ${where} order by "created_at", "id" limit ? offset ?`)
					.all(...params, limit, offset) as Record<string, unknown>[];
				const total = (
					db.$client.prepare(`select count(*) as n from "tenants" where ${where}`).get(...params) as { n: number }
				).n;
				return { items: items.map((row) => toTenant(RAW.fromRow(row))), total };
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
