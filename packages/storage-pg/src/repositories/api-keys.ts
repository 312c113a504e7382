import type { ApiKeyRecord, ApiKeyStore } from "@as2kit/core/store";
import { and, count, desc, eq, inArray, isNull, type SQL } from "drizzle-orm";
import type { Runner } from "../connection.ts";
import { apiKeys } from "../schema.ts";
import { pageOf, totalOver, window } from "./pg-page.ts";
import { rawTable } from "./pg-raw-table.ts";

const toApiKey = (row: typeof apiKeys.$inferSelect): ApiKeyRecord => row as ApiKeyRecord;
const first = ([row]: (typeof apiKeys.$inferSelect)[]) => (row ? toApiKey(row) : null);

const RAW_KEYS = rawTable(apiKeys);
const KEY_BY_HASH = `select ${RAW_KEYS.columns} from "api_keys" where "key_hash" = $1`;

export function createApiKeyStore(runner: Runner): ApiKeyStore {
	return {
		create: async (key) => {
			await runner.run((db) => db.insert(apiKeys).values(key));
		},
		// Every API request authenticates: a prepared statement on the hot path (pg-raw-table.ts).
		findByHash: (keyHash) =>
			runner
				.query<Record<string, unknown>>(KEY_BY_HASH, [keyHash])
				.then((rows) => first(rows.map((row) => RAW_KEYS.fromRow(row)))),
		get: (accountId, id) =>
			runner
				.run((db) =>
					db
						.select()
						.from(apiKeys)
						.where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, id))),
				)
				.then(first),
		list: (accountId, page, filter) => {
			const conditions: SQL[] = [eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)];
			if (filter?.tenantIds) conditions.push(inArray(apiKeys.tenantId, [...filter.tenantIds]));
			if (filter?.environment) conditions.push(eq(apiKeys.environment, filter.environment));
			const where = and(...conditions);
			return runner.run(async (db) => {
				const { limit, offset } = window(page);
				const rows = await db
					.select({ key: apiKeys, total: totalOver() })
					.from(apiKeys)
					.where(where)
					.orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
					.limit(limit)
					.offset(offset);
				return pageOf(
					rows,
					(row) => toApiKey(row.key),
					offset,
					async () => (await db.select({ n: count() }).from(apiKeys).where(where))[0]?.n ?? 0,
				);
			});
		},
		touch: async (id, lastUsedAt) => {
			await runner.run((db) => db.update(apiKeys).set({ lastUsedAt }).where(eq(apiKeys.id, id)));
		},
		revoke: (accountId, id, revokedAt) =>
			runner
				.run((db) =>
					db
						.update(apiKeys)
						.set({ revokedAt })
						.where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
						.returning(),
				)
				.then(first),
	};
}
