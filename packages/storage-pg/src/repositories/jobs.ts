import type {
	ClaimedJob,
	JobLease,
	JobRecord,
	JobStore,
	MessageRecord,
	NewJob,
	ScheduleStore,
} from "@as2kit/core/store";
import { asc, eq, sql } from "drizzle-orm";
import type { Runner } from "../connection.ts";
import { jobs, messages, schedules } from "../schema.ts";
import { type TextRow, unread } from "../undescribed-query.ts";
import { depthColumns } from "./job-depth.ts";
import { rawTable } from "./pg-raw-table.ts";

type JobRow = typeof jobs.$inferSelect;

export const toJob = (row: JobRow): JobRecord => ({ ...row, id: String(row.id) });
const claimOrder = (a: JobRow, b: JobRow) =>
	b.priority - a.priority || a.runAt.getTime() - b.runAt.getTime() || a.id - b.id;

/** The bigserial behind a job id; null for an id no job can have. */
export const jobId = (id: string): number | null => (/^[0-9]{1,15}$/.test(id) ? Number(id) : null);

/** Runs `statement` (`$1` the job, `$2` its holder, then `params`) on a job held by `workerId`; false for an id no job can have. */
const heldBy =
	(runner: Runner) =>
	async (id: string, workerId: string, statement: string, params: unknown[]): Promise<boolean> => {
		const numeric = jobId(id);
		if (numeric === null) return false;
		return (await runner.query(statement, [numeric, workerId, ...params], unread)).length === 1;
	};

const RAW_JOBS = rawTable(jobs);
const RAW_MESSAGES = rawTable(messages);
/** How a claim's row names its message's columns, apart from the job's. */
const MESSAGE_PREFIX = "m_";
/**
 * A keyed job is skipped while its key is held (`jobs_key_unique`, over keyed jobs alone: the
 * `where` names that index). A keyless one cannot conflict, so its insert goes without `on
 * conflict`: the clause would send it through the speculative insertion's checks for nothing
 * (stop 35: with the key's index partial, −7 µs of the backend and −19 % of WAL a job).
 */
const ENQUEUE_KEYED = `${RAW_JOBS.insertSql(["id"])} on conflict ("key") where "key" is not null do nothing returning ${RAW_JOBS.columns}`;
const ENQUEUE = `${RAW_JOBS.insertSql(["id"])} returning ${RAW_JOBS.columns}`;
/**
 * SKIP LOCKED: concurrent claimers pass over the rows another is taking instead of waiting
 * for it and then finding them held, so no job goes to two workers. In jobs_claim_idx order.
 */
const claimUpdate = (
	withKinds: boolean,
) => `update "jobs" set "attempts" = "attempts" + 1, "locked_by" = $1, "locked_until" = $2
	where "id" in (select "id" from "jobs" where "run_at" <= $3 and ("locked_until" is null or "locked_until" < $3)
		${withKinds ? `and "kind" = any($5::text[])` : ""}
		order by "priority" desc, "run_at", "id" limit $4 for update skip locked)
	returning ${RAW_JOBS.columns}`;
/**
 * The claim, and with each job of the `withMessage` kinds (the last parameter) the message its
 * payload's `messageId` names, in one round trip. The message is read with the statement's
 * snapshot, taken before the rows were locked: a write to it committed in between would have to
 * come from a writer that ignores the job's lease (every other waits for the lease, or changes
 * the job too, and a job changed since the snapshot is re-checked by its lock), the same race
 * as a read after the claim, which the send job's conditional moves guard.
 */
const claimWithMessages = (withKinds: boolean) => `with "claimed" as (${claimUpdate(withKinds)})
	select "claimed".*, ${RAW_MESSAGES.aliasedColumns("m", MESSAGE_PREFIX)} from "claimed"
	left join "messages" "m" on "claimed"."kind" = any($${withKinds ? 6 : 5}::text[])
		and "m"."id" = "claimed"."payload" ->> 'messageId'`;
const CLAIM = claimUpdate(false);
const CLAIM_KINDS = claimUpdate(true);
const CLAIM_WITH_MESSAGES = claimWithMessages(false);
const CLAIM_KINDS_WITH_MESSAGES = claimWithMessages(true);
const HELD_BY = '"id" = $1 and "locked_by" = $2';
const COMPLETE = `delete from "jobs" where ${HELD_BY} returning "id"`;
// A failed send retries and a long one renews its lease: prepared like the claim and completion.
const RETRY = `update "jobs" set "locked_by" = null, "locked_until" = null, "run_at" = $3, "last_error" = $4 where ${HELD_BY} returning "id"`;
const EXTEND = `update "jobs" set "locked_until" = $3 where ${HELD_BY} returning "id"`;
// One statement each, so that no claim comes between the check of the lease and the change.
const UNHELD_KEY = `"key" = $1 and ("locked_until" is null or "locked_until" < $2)`;
const CANCEL_KEY = `delete from "jobs" where ${UNHELD_KEY} returning "id"`;
const RESCHEDULE_KEY = `update "jobs" set "run_at" = $3 where ${UNHELD_KEY} returning "id"`;
const HAS_KEY = `select 1 from "jobs" where "key" = $1`;

/**
 * A job row and, after its columns, the message a claim's row carries (claimWithMessages): each
 * read without Describe, as text (undescribed-query.ts). The message is null when the job named
 * none found (its id column is null).
 */
const claimedRow = (row: TextRow) => ({ job: RAW_JOBS.fromText(row), row });
function joinedMessage(row: TextRow): MessageRecord | null {
	return row[RAW_JOBS.width] === null ? null : (RAW_MESSAGES.fromText(row, RAW_JOBS.width) as MessageRecord);
}

export function createJobStore(runner: Runner): JobStore {
	const onHeld = heldBy(runner);
	// A job handed to a worker as it is written is stored as a claim would leave it.
	const insert = (job: NewJob, now: Date, lease: JobLease | null) =>
		runner
			.query(
				job.key == null ? ENQUEUE : ENQUEUE_KEYED,
				RAW_JOBS.toParams(
					{
						kind: job.kind,
						payload: job.payload,
						key: job.key ?? null,
						priority: job.priority ?? 0,
						runAt: job.runAt,
						attempts: lease ? 1 : 0,
						lockedBy: lease?.workerId ?? null,
						lockedUntil: lease?.lockedUntil ?? null,
						createdAt: now,
					},
					["id"],
				),
				(row) => toJob(RAW_JOBS.fromText(row)),
			)
			// Completed jobs are deleted, so a held key belongs to a live job (port contract).
			.then(([job]) => job ?? null);
	return {
		// Every state change enqueues work, and workers claim and complete it: prepared statements
		// on the hot path (pg-raw-table.ts).
		enqueue: (job, now) => insert(job, now, null),
		enqueueClaimed: (job, now, lease) => insert(job, now, lease),
		claim: ({ kinds, limit, workerId, leaseMs, now, withMessage }) => {
			const params: unknown[] = [workerId, new Date(now.getTime() + leaseMs).toISOString(), now.toISOString(), limit];
			if (kinds) params.push([...kinds]);
			if (withMessage) params.push([...withMessage]);
			const statement = withMessage
				? kinds
					? CLAIM_KINDS_WITH_MESSAGES
					: CLAIM_WITH_MESSAGES
				: kinds
					? CLAIM_KINDS
					: CLAIM;
			return runner.query(statement, params, claimedRow).then((rows) =>
				rows
					.sort((a, b) => claimOrder(a.job, b.job))
					.map(({ job, row }) => {
						const claimed: ClaimedJob = toJob(job);
						if (withMessage?.includes(job.kind)) claimed.message = joinedMessage(row);
						return claimed;
					}),
			);
		},
		complete: (id, workerId) => onHeld(id, workerId, COMPLETE, []),
		retry: (id, workerId, { runAt, error }) => onHeld(id, workerId, RETRY, [jobs.runAt.mapToDriverValue(runAt), error]),
		extendLease: (id, workerId, lockedUntil) =>
			onHeld(id, workerId, EXTEND, [jobs.lockedUntil.mapToDriverValue(lockedUntil)]),
		cancelByKey: async (key, now) => {
			if ((await runner.query(CANCEL_KEY, [key, now.toISOString()], unread)).length === 1) return "done";
			return (await runner.query(HAS_KEY, [key], unread)).length > 0 ? "leased" : "none";
		},
		rescheduleByKey: async (key, runAt, now) => {
			if ((await runner.query(RESCHEDULE_KEY, [key, now.toISOString(), runAt.toISOString()], unread)).length === 1)
				return "done";
			return (await runner.query(HAS_KEY, [key], unread)).length > 0 ? "leased" : "none";
		},
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
		depth: (now) =>
			runner.run((db) => db.select(depthColumns(now)).from(jobs).groupBy(jobs.kind).orderBy(asc(jobs.kind))),
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
