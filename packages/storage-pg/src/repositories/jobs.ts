import type { JobRecord, JobStore, ScheduleStore } from "@as2kit/core/store";
import { and, asc, desc, eq, inArray, isNull, lt, lte, or, type SQL, sql } from "drizzle-orm";
import type { Runner } from "../connection.ts";
import { jobs, schedules } from "../schema.ts";

type JobRow = typeof jobs.$inferSelect;

const toJob = (row: JobRow): JobRecord => ({ ...row, id: String(row.id) });
const claimOrder = (a: JobRow, b: JobRow) =>
	b.priority - a.priority || a.runAt.getTime() - b.runAt.getTime() || a.id - b.id;

/** The bigserial behind a job id; null for an id no job can have. */
const jobId = (id: string): number | null => (/^[0-9]{1,15}$/.test(id) ? Number(id) : null);

/** Runs `op` on a job held by `workerId`; false for an id no job can have. */
async function onHeld(id: string, workerId: string, op: (where: SQL) => Promise<number | null>): Promise<boolean> {
	const numeric = jobId(id);
	if (numeric === null) return false;
	const changed = await op(and(eq(jobs.id, numeric), eq(jobs.lockedBy, workerId))!);
	return changed === 1;
}

export function createJobStore(runner: Runner): JobStore {
	return {
		enqueue: (job, now) =>
			runner
				.run((db) =>
					db
						.insert(jobs)
						.values({
							kind: job.kind,
							payload: job.payload,
							key: job.key ?? null,
							priority: job.priority ?? 0,
							runAt: job.runAt,
							attempts: 0,
							createdAt: now,
						})
						// Completed jobs are deleted, so a held key belongs to a live job (port contract).
						.onConflictDoNothing({ target: jobs.key })
						.returning(),
				)
				.then(([row]) => (row ? toJob(row) : null)),
		claim: ({ kinds, limit, workerId, leaseMs, now }) => {
			const due: SQL[] = [lte(jobs.runAt, now), or(isNull(jobs.lockedUntil), lt(jobs.lockedUntil, now))!];
			if (kinds) due.push(inArray(jobs.kind, [...kinds]));
			return runner
				.run((db) => {
					// SKIP LOCKED: concurrent claimers pass over the rows another is taking instead of
					// waiting for it and then finding them held, so no job goes to two workers.
					const picked = db
						.select({ id: jobs.id })
						.from(jobs)
						.where(and(...due))
						.orderBy(desc(jobs.priority), asc(jobs.runAt), asc(jobs.id))
						.limit(limit)
						.for("update", { skipLocked: true });
					return db
						.update(jobs)
						.set({
							lockedBy: workerId,
							lockedUntil: new Date(now.getTime() + leaseMs),
							attempts: sql`${jobs.attempts} + 1`,
						})
						.where(inArray(jobs.id, picked))
						.returning();
				})
				.then((rows) => rows.sort(claimOrder).map(toJob));
		},
		complete: (id, workerId) =>
			onHeld(id, workerId, (where) =>
				runner.run((db) => db.delete(jobs).where(where)).then((result) => result.rowCount),
			),
		retry: (id, workerId, { runAt, error }) =>
			onHeld(id, workerId, (where) =>
				runner
					.run((db) => db.update(jobs).set({ lockedBy: null, lockedUntil: null, runAt, lastError: error }).where(where))
					.then((result) => result.rowCount),
			),
		extendLease: (id, workerId, lockedUntil) =>
			onHeld(id, workerId, (where) =>
				runner.run((db) => db.update(jobs).set({ lockedUntil }).where(where)).then((result) => result.rowCount),
			),
		get: async (id) => {
			const numeric = jobId(id);
			if (numeric === null) return null;
			const [row] = await runner.run((db) => db.select().from(jobs).where(eq(jobs.id, numeric)));
			return row ? toJob(row) : null;
		},
		list: (options) =>
			runner
				.run((db) =>
					db
						.select()
						.from(jobs)
						.where(options?.kind ? eq(jobs.kind, options.kind) : undefined)
						.orderBy(asc(jobs.id)),
				)
				.then((rows) => rows.map(toJob)),
	};
}

export function createScheduleStore(runner: Runner): ScheduleStore {
	return {
		// Concurrent first claims of a name wait on its key, then meet the period already set.
		claimPeriod: (name, period) =>
			runner
				.run((db) =>
					db
						.insert(schedules)
						.values({ name, period })
						.onConflictDoUpdate({
							target: schedules.name,
							set: { period },
							setWhere: sql`${schedules.period} <> ${period}`,
						})
						.returning({ name: schedules.name }),
				)
				.then((rows) => rows.length === 1),
	};
}
