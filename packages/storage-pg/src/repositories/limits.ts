import { randomUUID } from "node:crypto";
import { type RateLimitStore, STORAGE_PERIOD, takeFromBucket, type UsageStore } from "@as2kit/core/store";
import { and, count, eq, gt, lte, sql } from "drizzle-orm";
import type { Db, Runner } from "../connection.ts";
import { rateBuckets, rateSlots, usageCounters, usageThresholds } from "../schema.ts";
import { firstText } from "../undescribed-query.ts";

type Bucket = typeof rateBuckets.$inferSelect;

const INCREMENT = `insert into "usage_counters" ("account_id", "period", "metric", "value") values ($1, $2, $3, $4)
	on conflict ("account_id", "period", "metric") do update set "value" = "usage_counters"."value" + excluded."value"
	returning "value"`;

/**
 * The bucket of `key`, locked until commit. A missing bucket is created full first: a row that
 * does not exist cannot be locked, and two first requests must not both start from a full one.
 */
async function lockBucket(db: Db, key: string, capacity: number, now: Date): Promise<Bucket> {
	const locked = () => db.select().from(rateBuckets).where(eq(rateBuckets.key, key)).for("update");
	const [bucket] = await locked();
	if (bucket) return bucket;
	await db.insert(rateBuckets).values({ key, tokens: capacity, updatedAt: now }).onConflictDoNothing();
	const [created] = await locked();
	return created!;
}

export function createRateLimitStore(runner: Runner): RateLimitStore {
	return {
		take: (options) =>
			runner.atomic(async (db) => {
				const bucket = await lockBucket(db, options.key, options.capacity, options.now);
				const { tokens, updatedAt, ...result } = takeFromBucket(bucket, options);
				await db.update(rateBuckets).set({ tokens, updatedAt }).where(eq(rateBuckets.key, options.key));
				return result;
			}),
		acquireSlot: ({ key, limit, now, expiresAt }) =>
			runner.atomic(async (db) => {
				// Counting and inserting must not interleave with another acquire of the key: the
				// transaction-scoped lock serialises them, and goes with the commit.
				await db.execute(sql`select pg_advisory_xact_lock(hashtext(${`rate_slots:${key}`}))`);
				await db.delete(rateSlots).where(and(eq(rateSlots.key, key), lte(rateSlots.expiresAt, now)));
				const [held] = await db
					.select({ n: count() })
					.from(rateSlots)
					.where(and(eq(rateSlots.key, key), gt(rateSlots.expiresAt, now)));
				if ((held?.n ?? 0) >= limit) return null;
				const id = randomUUID();
				await db.insert(rateSlots).values({ id, key, expiresAt });
				return id;
			}),
		releaseSlot: async (slotId) => {
			await runner.run((db) => db.delete(rateSlots).where(eq(rateSlots.id, slotId)));
		},
	};
}

const counterOf = (accountId: string, period: string, metric: string) =>
	and(eq(usageCounters.accountId, accountId), eq(usageCounters.period, period), eq(usageCounters.metric, metric));

/** The upsert of `rows` counters, memoised by their number (each text is a prepared statement). */
export const incrementRows = (() => {
	const texts: string[] = [];
	return (rows: number) =>
		(texts[rows] ??= `insert into "usage_counters" ("account_id", "period", "metric", "value") values ${Array.from(
			{ length: rows },
			(_, i) => `($${4 * i + 1}, $${4 * i + 2}, $${4 * i + 3}, $${4 * i + 4})`,
		).join(", ")}
	on conflict ("account_id", "period", "metric") do update set "value" = "usage_counters"."value" + excluded."value"
	returning "metric", "value"`);
})();

export function createUsageStore(runner: Runner): UsageStore {
	return {
		// Every live message counts twice: a prepared statement on the hot path (pg-raw-table.ts).
		increment: ({ accountId, period, metric, by }) =>
			runner
				.query(INCREMENT, [accountId, period, metric, by], firstText)
				.then(([value]) => usageCounters.value.mapFromDriverValue(value!) as number),
		incrementMany: ({ accountId, period, by }) => {
			const counters = Object.entries(by);
			return runner
				.query(
					incrementRows(counters.length),
					counters.flatMap(([metric, value]) => [accountId, period, metric, value]),
					// "metric", then "value" (an int8: its text, as node-postgres' own parser leaves it).
					(columns) => [columns[0] as string, usageCounters.value.mapFromDriverValue(columns[1] as string) as number],
				)
				.then((rows) => Object.fromEntries(rows));
		},
		get: ({ accountId, period, metric }) =>
			runner
				.run((db) =>
					db
						.select({ value: usageCounters.value })
						.from(usageCounters)
						.where(counterOf(accountId, period, metric)),
				)
				.then(([row]) => row?.value ?? 0),
		markThreshold: ({ accountId, period, metric, threshold }) =>
			runner
				.run((db) =>
					db
						.insert(usageThresholds)
						.values({ accountId, period, metric, threshold })
						.onConflictDoNothing()
						.returning({ threshold: usageThresholds.threshold }),
				)
				.then((rows) => rows.length === 1),
		listStorage: () =>
			runner.run((db) =>
				db
					.select({ accountId: usageCounters.accountId, metric: usageCounters.metric, value: usageCounters.value })
					.from(usageCounters)
					.where(eq(usageCounters.period, STORAGE_PERIOD)),
			),
		measureStorage: async () => {
			await runner.run((db) => db.execute(sql`delete from usage_counters where period = ${STORAGE_PERIOD}`));
			await runner.run((db) =>
				db.execute(sql`insert into usage_counters (account_id, period, metric, value)
					select account_id, ${STORAGE_PERIOD}, 'payload_bytes', sum(bytes) from messages group by account_id`),
			);
			await runner.run((db) =>
				db.execute(sql`insert into usage_counters (account_id, period, metric, value)
					select t.account_id, ${STORAGE_PERIOD}, 'wire_bytes',
					  sum(coalesce((a.request->>'bytes')::bigint, 0) + coalesce((a.response->>'bytes')::bigint, 0)
					    + coalesce((a.mdn->>'bytes')::bigint, 0))
					from message_attempts a join tenants t on t.id = a.tenant_id
					where a.wire_expires_at is not null group by t.account_id`),
			);
		},
	};
}
