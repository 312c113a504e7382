import type { ApiKeyRecord, ApiKeyStore } from "@as2kit/core/store";
import { and, count, desc, eq, inArray, isNull, type SQL } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { rawTable } from "../raw-table.ts";
import { apiKeys } from "../schema.ts";
import { orNull } from "./accounts.ts";
import { window } from "./pagination.ts";

const RAW = rawTable(apiKeys);
const BY_HASH = `select ${RAW.columns} from "api_keys" where "key_hash" = ?`;
const toApiKey = (row: typeof apiKeys.$inferSelect): ApiKeyRecord => row as ApiKeyRecord;

export function createApiKeyStore(exec: Exec): ApiKeyStore {
	return {
		create: (key) => exec((db) => void db.insert(apiKeys).values(key).run()),
		// Every API request: plain SQL on the hot path (raw-table.ts).
		findByHash: (keyHash) =>
			exec((db) => {
				const row = db.$client.prepare(BY_HASH).get(keyHash) as Record<string, unknown> | undefined;
				return row ? toApiKey(RAW.fromRow(row)) : null;
			}),
		get: (accountId, id) =>
			exec((db) =>
				db
					.select()
					.from(apiKeys)
					.where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, id)))
					.get(),
			).then(orNull(toApiKey)),
		list: (accountId, page, filter) =>
			exec((db) => {
				const conditions: SQL[] = [eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)];
				if (filter?.tenantIds) conditions.push(inArray(apiKeys.tenantId, [...filter.tenantIds]));
				if (filter?.environment) conditions.push(eq(apiKeys.environment, filter.environment));
				const where = and(...conditions);
				const { limit, offset } = window(page);
				const items = db
					.select()
					.from(apiKeys)
					.where(where)
					.orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
					.limit(limit)
					.offset(offset)
					.all();
				const total = db.select({ n: count() }).from(apiKeys).where(where).get()?.n ?? 0;
				return { items: items.map(toApiKey), total };
			}),
		touch: (id, lastUsedAt) =>
			exec((db) => void db.update(apiKeys).set({ lastUsedAt }).where(eq(apiKeys.id, id)).run()),
		revoke: (accountId, id, revokedAt) =>
			exec((db) =>
				db
					.update(apiKeys)
					.set({ revokedAt })
					.where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
					.returning()
					.get(),
			).then(orNull(toApiKey)),
	};
}
