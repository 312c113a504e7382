import type { IdempotencyRecord, IdempotencyStore } from "@as2kit/core/store";
import { and, eq, lt } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { idempotencyKeys } from "../schema.ts";

const toRecord = (row: typeof idempotencyKeys.$inferSelect): IdempotencyRecord => row as IdempotencyRecord;
const keyOf = (scope: string, key: string) => and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key));

export function createIdempotencyStore(exec: Exec): IdempotencyStore {
	return {
		begin: (record, now) =>
			exec((db) =>
				db.transaction(
					(tx) => {
						const existing = tx.select().from(idempotencyKeys).where(keyOf(record.scope, record.key)).get();
						if (existing && existing.expiresAt <= now) {
							tx.delete(idempotencyKeys).where(keyOf(record.scope, record.key)).run();
						} else if (existing) {
							const abandoned =
								existing.state === "pending" &&
								existing.fingerprint === record.fingerprint &&
								existing.lockedUntil !== null &&
								existing.lockedUntil <= now;
							if (!abandoned) return { outcome: "existing" as const, record: toRecord(existing) };
							const taken = tx
								.update(idempotencyKeys)
								.set({ lockedUntil: record.lockedUntil })
								.where(keyOf(record.scope, record.key))
								.returning()
								.get();
							return { outcome: "started" as const, record: toRecord(taken!) };
						}
						tx.insert(idempotencyKeys).values(record).run();
						return { outcome: "started" as const, record };
					},
					{ behavior: "immediate" },
				),
			),
		get: (scope, key) =>
			exec((db) => {
				const row = db.select().from(idempotencyKeys).where(keyOf(scope, key)).get();
				return row ? toRecord(row) : null;
			}),
		complete: (scope, key, response) =>
			exec(
				(db) =>
					void db
						.update(idempotencyKeys)
						.set({
							state: "completed",
							responseStatus: response.status,
							responseBody: response.body,
							lockedUntil: null,
						})
						.where(keyOf(scope, key))
						.run(),
			),
		release: (scope, key) => exec((db) => void db.delete(idempotencyKeys).where(keyOf(scope, key)).run()),
		purgeExpired: (now) =>
			exec((db) => db.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAt, now)).run().changes),
	};
}
