import type { ClaimedJob, JobLease, JobRecord, JobStore, NewJob, ScheduleStore } from "@as2kit/core/store";
import { asc, eq, sql } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { rawTable } from "../raw-table.ts";
import { jobs, schedules } from "../schema.ts";
import { depthColumns } from "./job-depth.ts";
import { readMessageById } from "./messages.ts";

const RAW_JOBS = rawTable(jobs);
// Without RETURNING (which costs more than the insert: 7 µs against 2.5): a job written is the
// values given and the id SQLite chose, so the record is built from them as a read would map them.
const ENQUEUE = `${RAW_JOBS.insertSql} on conflict ("key") do nothing`;
const ID_COLUMN = RAW_JOBS.columnIndex("id");
const toJob = (row: typeof jobs.$inferSelect): JobRecord => ({ ...row, id: String(row.id) });
// A worker polls after every job it finishes: claiming, completing and renewing are plain SQL
// (raw-table.ts). Times are stored as epoch milliseconds, as the `instant` columns map them.
const HELD_BY = `"id" = ? and "locked_by" = ?`;
const COMPLETE = `delete from "jobs" where ${HELD_BY}`;
const RETRY = `update "jobs" set "locked_by" = null, "locked_until" = null, "run_at" = ?, "last_error" = ? where ${HELD_BY}`;
const EXTEND = `update "jobs" set "locked_until" = ? where ${HELD_BY}`;
// One statement each, so that no claim comes between the check of the lease and the change.
const UNHELD_KEY = `"key" = ? and ("locked_until" is null or "locked_until" < ?)`;
const CANCEL_KEY = `delete from "jobs" where ${UNHELD_KEY}`;
const RESCHEDULE_KEY = `update "jobs" set "run_at" = ? where ${UNHELD_KEY}`;
const HAS_KEY = `select 1 from "jobs" where "key" = ?`;

/**
 * The due jobs a claim takes, in claim order. Unary + keeps SQLite from filtering through the
 * kind or run_at indexes and then sorting every due job (milliseconds per claim with thousands
 * due): it walks jobs_claim_idx in claim order instead and stops after `limit` matches.
 * A job of a `withMessage` kind gets its message by a primary-key read of its own, not by a
 * LEFT JOIN in this statement: the join made the claim cost 90 µs of CPU against 55 for the
 * statement and four reads (four jobs due, 300 in the table, issue #20).
 */
function dueSql(kinds: number | null): string {
	let sql = dueSqlByKinds.get(kinds);
	if (sql === undefined) {
		const ofKind = kinds === null ? "" : ` and +"kind" in (${placeholders(kinds)})`;
		sql = `select ${RAW_JOBS.columns} from "jobs"
		where +"run_at" <= ? and ("locked_until" is null or "locked_until" < ?)${ofKind}
		order by "priority" desc, "run_at" asc, "id" asc limit ?`;
		dueSqlByKinds.set(kinds, sql);
	}
	return sql;
}
/** A worker claims with the same kinds every time: its statement's text is built once. */
const dueSqlByKinds = new Map<number | null, string>();
const placeholders = (count: number) => Array.from({ length: count }, () => "?").join(", ");
/**
 * Locks one job found due. The read and the locks are one transaction (connection.ts): should
 * another connection write in between, SQLite refuses the first lock (SQLITE_BUSY_SNAPSHOT)
 * and the claim runs again, so two claimers never take one job. A read and plain updates cost
 * less than one UPDATE … WHERE id IN (SELECT …) RETURNING, whose subquery and RETURNING each
 * go through a temporary table (~130 µs against ~50 in the throughput benchmark's sender),
 * and a claim that finds nothing due no longer takes the write lock.
 */
const LOCK = `update "jobs" set "locked_by" = ?, "locked_until" = ?, "attempts" = "attempts" + 1 where "id" = ?`;

export function createJobStore(exec: Exec): JobStore {
	// A job handed to a worker as it is written is stored as a claim would leave it.
	const insert = (job: NewJob, now: Date, lease: JobLease | null) =>
		exec((db) => {
			const params = RAW_JOBS.toParams({
				kind: job.kind,
				payload: job.payload,
				key: job.key ?? null,
				priority: job.priority ?? 0,
				runAt: job.runAt,
				attempts: lease ? 1 : 0,
				lockedBy: lease?.workerId ?? null,
				lockedUntil: lease?.lockedUntil ?? null,
				createdAt: now,
			});
			const written = db.$client.prepare(ENQUEUE).run(...params);
			if (written.changes === 0) return null;
			params[ID_COLUMN] = Number(written.lastInsertRowid);
			return toJob(RAW_JOBS.fromArray(params));
		});
	return {
		// Every state change enqueues work: plain SQL on the hot path (raw-table.ts).
		enqueue: (job, now) => insert(job, now, null),
		enqueueClaimed: (job, now, lease) => insert(job, now, lease),
		claim: ({ kinds, limit, workerId, leaseMs, now, withMessage }) =>
			exec((db) => {
				const kindList = kinds ? [...kinds] : null;
				const at = now.getTime();
				const rows = db.$client
					.prepare(dueSql(kindList?.length ?? null))
					.raw(true)
					.all(at, at, ...(kindList ?? []), limit) as unknown[][];
				const lockedUntil = at + leaseMs;
				const lock = db.$client.prepare(LOCK);
				return rows.map((row): ClaimedJob => {
					const job = toJob(RAW_JOBS.fromArray(row));
					lock.run(workerId, lockedUntil, Number(job.id));
					const claimed: ClaimedJob = {
						...job,
						lockedBy: workerId,
						lockedUntil: new Date(lockedUntil),
						attempts: job.attempts + 1,
					};
					// Read in the transaction that takes the lock (connection.ts): the row as of the claim.
					if (withMessage?.includes(job.kind)) {
						const messageId = job.payload.messageId;
						claimed.message = typeof messageId === "string" ? readMessageById(db, messageId) : null;
					}
					return claimed;
				});
			}),
		complete: (id, workerId) => exec((db) => db.$client.prepare(COMPLETE).run(Number(id), workerId).changes === 1),
		retry: (id, workerId, { runAt, error }) =>
			exec((db) => db.$client.prepare(RETRY).run(runAt.getTime(), error, Number(id), workerId).changes === 1),
		extendLease: (id, workerId, lockedUntil) =>
			exec((db) => db.$client.prepare(EXTEND).run(lockedUntil.getTime(), Number(id), workerId).changes === 1),
		cancelByKey: (key, now) =>
			exec((db) => {
				if (db.$client.prepare(CANCEL_KEY).run(key, now.getTime()).changes === 1) return "done";
				return db.$client.prepare(HAS_KEY).get(key) ? "leased" : "none";
			}),
		rescheduleByKey: (key, runAt, now) =>
			exec((db) => {
				if (db.$client.prepare(RESCHEDULE_KEY).run(runAt.getTime(), key, now.getTime()).changes === 1) return "done";
				return db.$client.prepare(HAS_KEY).get(key) ? "leased" : "none";
			}),
		get: (id) =>
			exec((db) => {
				const row = db
					.select()
					.from(jobs)
					.where(eq(jobs.id, Number(id)))
					.get();
				return row ? toJob(row) : null;
			}),
		list: (options) =>
			exec((db) =>
				db
					.select()
					.from(jobs)
					.where(options?.kind ? eq(jobs.kind, options.kind) : undefined)
					.orderBy(asc(jobs.id))
					.all()
					.map(toJob),
			),
		depth: (now) =>
			exec((db) => db.select(depthColumns(now)).from(jobs).groupBy(jobs.kind).orderBy(asc(jobs.kind)).all()),
	};
}

export function createScheduleStore(exec: Exec): ScheduleStore {
	return {
		claimPeriod: (name, period) =>
			exec(
				(db) =>
					db
						.insert(schedules)
						.values({ name, period })
						.onConflictDoUpdate({
							target: schedules.name,
							set: { period },
							setWhere: sql`${schedules.period} <> ${period}`,
						})
						.run().changes === 1,
			),
	};
}
