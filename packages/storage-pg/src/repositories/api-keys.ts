import type { ApiKeyRecord, ApiKeyStore } from "@as2kit/core/store";
import { and, count, desc, eq, isNull, type SQL } from "drizzle-orm";
import type { Runner } from "../connection.ts";
import { apiKeys } from "../schema.ts";
import { pageOf, totalOver, window } from "./pg-page.ts";

const toApiKey = (row: typeof apiKeys.$inferSelect): ApiKeyRecord => row as ApiKeyRecord;
const first = ([row]: (typeof apiKeys.$inferSelect)[]) => (row ? toApiKey(row) : null);

export function createApiKeyStore(runner: Runner): ApiKeyStore {
	return {
		create: async (key) => {
			await runner.run((db) => db.insert(apiKeys).values(key));
		},
		findByHash: (keyHash) =>
			runner.run((db) => db.select().from(apiKeys).where(eq(apiKeys.keyHash, keyHash))).then(first),
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
			if (filter?.tenantId) conditions.push(eq(apiKeys.tenantId, filter.tenantId));
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
