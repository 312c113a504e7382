import type { IdempotencyRecord, IdempotencyStore } from "@as2kit/core/store";
import { and, eq, lt, lte } from "drizzle-orm";
import type { Runner } from "../connection.ts";
import { idempotencyKeys } from "../schema.ts";

const toRecord = (row: typeof idempotencyKeys.$inferSelect): IdempotencyRecord => row as IdempotencyRecord;
const keyOf = (scope: string, key: string) => and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key));

export function createIdempotencyStore(runner: Runner): IdempotencyStore {
	return {
		begin: (record, now) =>
			runner.atomic(async (db) => {
				const key = keyOf(record.scope, record.key);
				await db.delete(idempotencyKeys).where(and(key, lte(idempotencyKeys.expiresAt, now)));
				// A concurrent begin of the same key waits here for the other to commit, then meets
				// its row: taken over only when abandoned (pending, same request, lock expired).
				const [started] = await db
					.insert(idempotencyKeys)
					.values(record)
					.onConflictDoUpdate({
						target: [idempotencyKeys.scope, idempotencyKeys.key],
						set: { lockedUntil: record.lockedUntil },
						setWhere: and(
							eq(idempotencyKeys.state, "pending"),
							eq(idempotencyKeys.fingerprint, record.fingerprint),
							lte(idempotencyKeys.lockedUntil, now),
						),
					})
					.returning();
				if (started) return { outcome: "started" as const, record: toRecord(started) };
				// The conflicting row stays locked by the upsert until commit: it is still there.
				const [existing] = await db.select().from(idempotencyKeys).where(key);
				return { outcome: "existing" as const, record: toRecord(existing!) };
			}),
		get: (scope, key) =>
			runner
				.run((db) => db.select().from(idempotencyKeys).where(keyOf(scope, key)))
				.then(([row]) => (row ? toRecord(row) : null)),
		complete: async (scope, key, response) => {
			await runner.run((db) =>
				db
					.update(idempotencyKeys)
					.set({
						state: "completed",
						responseStatus: response.status,
						responseBody: response.body,
						lockedUntil: null,
					})
					.where(keyOf(scope, key)),
			);
		},
		release: async (scope, key) => {
			await runner.run((db) => db.delete(idempotencyKeys).where(keyOf(scope, key)));
		},
		purgeExpired: (now) =>
			runner
				.run((db) => db.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAt, now)))
				.then((result) => result.rowCount ?? 0),
	};
}
