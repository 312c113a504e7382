import type { JobRecord, JobStore, ScheduleStore } from "@as2kit/core/store";
import { and, asc, desc, eq, inArray, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { rawTable } from "../raw-table.ts";
import { jobs, schedules } from "../schema.ts";

const RAW_JOBS = rawTable(jobs);
const ENQUEUE = `${RAW_JOBS.insertSql} on conflict ("key") do nothing returning ${RAW_JOBS.columns}`;
const toJob = (row: typeof jobs.$inferSelect): JobRecord => ({ ...row, id: String(row.id) });
const heldBy = (id: string, workerId: string) => and(eq(jobs.id, Number(id)), eq(jobs.lockedBy, workerId));

export function createJobStore(exec: Exec): JobStore {
	return {
		// Every state change enqueues work: plain SQL on the hot path (raw-table.ts).
		enqueue: (job, now) =>
			exec((db) => {
				const params = RAW_JOBS.toParams({
					kind: job.kind,
					payload: job.payload,
					key: job.key ?? null,
					priority: job.priority ?? 0,
					runAt: job.runAt,
					attempts: 0,
					createdAt: now,
				});
				const row = db.$client.prepare(ENQUEUE).get(...params) as Record<string, unknown> | undefined;
				return row ? toJob(RAW_JOBS.fromRow(row)) : null;
			}),
		claim: ({ kinds, limit, workerId, leaseMs, now }) =>
			exec((db) => {
				// Unary + keeps SQLite from filtering through the kind or run_at indexes and then
				// sorting every due job (milliseconds per claim with thousands due): it walks
				// jobs_claim_idx in claim order instead and stops after `limit` matches.
				const due: SQL[] = [
					sql`+${jobs.runAt} <= ${now.getTime()}`,
					or(isNull(jobs.lockedUntil), lt(jobs.lockedUntil, now))!,
				];
				if (kinds) due.push(inArray(sql`+${jobs.kind}`, [...kinds]));
				// One statement: SQLite runs it atomically, so two claimers never take one job.
				const picked = db
					.select({ id: jobs.id })
					.from(jobs)
					.where(and(...due))
					.orderBy(desc(jobs.priority), asc(jobs.runAt), asc(jobs.id))
					.limit(limit);
				return db
					.update(jobs)
					.set({
						lockedBy: workerId,
						lockedUntil: new Date(now.getTime() + leaseMs),
						attempts: sql`${jobs.attempts} + 1`,
					})
					.where(inArray(jobs.id, picked))
					.returning()
					.all()
					.sort((a, b) => b.priority - a.priority || a.runAt.getTime() - b.runAt.getTime() || a.id - b.id)
					.map(toJob);
			}),
		complete: (id, workerId) => exec((db) => db.delete(jobs).where(heldBy(id, workerId)).run().changes === 1),
		retry: (id, workerId, { runAt, error }) =>
			exec(
				(db) =>
					db
						.update(jobs)
						.set({ lockedBy: null, lockedUntil: null, runAt, lastError: error })
						.where(heldBy(id, workerId))
						.run().changes === 1,
			),
		extendLease: (id, workerId, lockedUntil) =>
			exec((db) => db.update(jobs).set({ lockedUntil }).where(heldBy(id, workerId)).run().changes === 1),
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
