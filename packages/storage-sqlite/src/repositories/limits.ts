import { randomUUID } from "node:crypto";
import type { RateLimitStore, TakeResult, UsageStore } from "@as2kit/core/store";
import { and, count, eq, gt, lte } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { rateBuckets, rateSlots, usageCounters, usageThresholds } from "../schema.ts";

export function createRateLimitStore(exec: Exec): RateLimitStore {
	return {
		take: ({ key, capacity, refillPerSecond, now }) =>
			exec((db) =>
				db.transaction(
					(tx): TakeResult => {
						const bucket = tx.select().from(rateBuckets).where(eq(rateBuckets.key, key)).get();
						const elapsed = bucket ? Math.max(0, now.getTime() - bucket.updatedAt.getTime()) / 1000 : 0;
						const available = bucket ? Math.min(capacity, bucket.tokens + elapsed * refillPerSecond) : capacity;
						const allowed = available >= 1;
						const tokens = allowed ? available - 1 : available;
						tx.insert(rateBuckets)
							.values({ key, tokens, updatedAt: now })
							.onConflictDoUpdate({ target: rateBuckets.key, set: { tokens, updatedAt: now } })
							.run();
						return {
							allowed,
							remaining: Math.floor(tokens),
							resetAt: new Date(now.getTime() + Math.ceil(((capacity - tokens) / refillPerSecond) * 1000)),
							retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / refillPerSecond)),
						};
					},
					{ behavior: "immediate" },
				),
			),
		acquireSlot: ({ key, limit, now, expiresAt }) =>
			exec((db) =>
				db.transaction(
					(tx) => {
						tx.delete(rateSlots)
							.where(and(eq(rateSlots.key, key), lte(rateSlots.expiresAt, now)))
							.run();
						const held =
							tx
								.select({ n: count() })
								.from(rateSlots)
								.where(and(eq(rateSlots.key, key), gt(rateSlots.expiresAt, now)))
								.get()?.n ?? 0;
						if (held >= limit) return null;
						const id = randomUUID();
						tx.insert(rateSlots).values({ id, key, expiresAt }).run();
						return id;
					},
					{ behavior: "immediate" },
				),
			),
		releaseSlot: (slotId) => exec((db) => void db.delete(rateSlots).where(eq(rateSlots.id, slotId)).run()),
	};
}

const INCREMENT = `insert into "usage_counters" ("account_id", "period", "metric", "value") values (?, ?, ?, ?)
	on conflict ("account_id", "period", "metric") do update set "value" = "usage_counters"."value" + ? returning "value"`;

export function createUsageStore(exec: Exec): UsageStore {
	const counter = (accountId: string, period: string, metric: string) =>
		and(eq(usageCounters.accountId, accountId), eq(usageCounters.period, period), eq(usageCounters.metric, metric));
	return {
		// Every live message counts twice: plain SQL on the hot path.
		increment: ({ accountId, period, metric, by }) =>
			exec((db) => (db.$client.prepare(INCREMENT).get(accountId, period, metric, by, by) as { value: number }).value),
		get: ({ accountId, period, metric }) =>
			exec(
				(db) =>
					db
						.select({ value: usageCounters.value })
						.from(usageCounters)
						.where(counter(accountId, period, metric))
						.get()?.value ?? 0,
			),
		markThreshold: ({ accountId, period, metric, threshold }) =>
			exec(
				(db) =>
					db.insert(usageThresholds).values({ accountId, period, metric, threshold }).onConflictDoNothing().run()
						.changes === 1,
			),
	};
}
