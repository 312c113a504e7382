import { randomUUID } from "node:crypto";
import {
	type RateLimitStore,
	STORAGE_PERIOD,
	type TakeResult,
	takeFromBucket,
	type UsageStore,
} from "@as2kit/core/store";
import { and, count, eq, gt, lte } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { rawTable } from "../raw-table.ts";
import { rateBuckets, rateSlots, usageCounters, usageThresholds } from "../schema.ts";

const BUCKETS = rawTable(rateBuckets);
const BUCKET = `select ${BUCKETS.columns} from "rate_buckets" where "key" = ?`;
const PUT_BUCKET = `${BUCKETS.insertSql} on conflict ("key") do update set "tokens" = excluded."tokens", "updated_at" = excluded."updated_at"`;

export function createRateLimitStore(exec: Exec): RateLimitStore {
	return {
		// Every API request takes a token: plain SQL on the hot path (raw-table.ts). The read and
		// the write are one unit (the connection runs each exec as one transaction).
		take: (options) =>
			exec((db): TakeResult => {
				const row = db.$client.prepare(BUCKET).get(options.key) as Record<string, unknown> | undefined;
				const { tokens, updatedAt, ...result } = takeFromBucket(row ? BUCKETS.fromRow(row) : null, options);
				db.$client.prepare(PUT_BUCKET).run(...BUCKETS.toParams({ key: options.key, tokens, updatedAt }));
				return result;
			}),
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
		// One single-row upsert per counter, not one upsert of all of them: SQLite runs a
		// multi-row upsert with RETURNING through temporary b-trees, 30 µs of CPU against 7 for
		// two single-row upserts (docs/performance.md, "The receiver per message (stop 29)").
		incrementMany: ({ accountId, period, by }) =>
			exec((db) => {
				const increment = db.$client.prepare(INCREMENT);
				return Object.fromEntries(
					Object.entries(by).map(([metric, value]) => [
						metric,
						(increment.get(accountId, period, metric, value, value) as { value: number }).value,
					]),
				);
			}),
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
		listStorage: () =>
			exec((db) =>
				db
					.select({ accountId: usageCounters.accountId, metric: usageCounters.metric, value: usageCounters.value })
					.from(usageCounters)
					.where(eq(usageCounters.period, STORAGE_PERIOD))
					.all(),
			),
		measureStorage: () =>
			exec((db) => {
				for (const statement of MEASURE_STORAGE) db.$client.prepare(statement).run(STORAGE_PERIOD);
			}),
	};
}

/** A full pass over messages and attempts, run by a periodic task: not on any request's path. */
const MEASURE_STORAGE = [
	`delete from "usage_counters" where "period" = ?`,
	`insert into "usage_counters" ("account_id", "period", "metric", "value")
	 select "account_id", ?, 'payload_bytes', sum("bytes") from "messages" group by "account_id"`,
	`insert into "usage_counters" ("account_id", "period", "metric", "value")
	 select t."account_id", ?, 'wire_bytes',
	   sum(coalesce(json_extract(a."request", '$.bytes'), 0) + coalesce(json_extract(a."response", '$.bytes'), 0)
	     + coalesce(json_extract(a."mdn", '$.bytes'), 0))
	 from "message_attempts" a join "tenants" t on t."id" = a."tenant_id"
	 where a."wire_expires_at" is not null group by t."account_id"`,
];
