import type { JobKindDepth } from "@as2kit/core/store";
import { and, gt, gte, isNull, lt, lte, or, type SQL, sql } from "drizzle-orm";
import { jobs } from "../schema.ts";

const count = (condition: SQL | undefined) =>
	sql<number>`sum(case when ${condition} then 1 else 0 end)`.mapWith(Number);

/** The columns of JobStore.depth, grouped by kind: a lease not yet expired holds its job (as claim sees it). */
export function depthColumns(now: Date) {
	const free = or(isNull(jobs.lockedUntil), lt(jobs.lockedUntil, now));
	const due = and(free, lte(jobs.runAt, now));
	return {
		kind: jobs.kind,
		due: count(due),
		scheduled: count(and(free, gt(jobs.runAt, now))),
		running: count(gte(jobs.lockedUntil, now)),
		oldestDueAt: sql<Date | null>`min(case when ${due} then ${jobs.runAt} end)`.mapWith(jobs.runAt),
	} satisfies Record<keyof JobKindDepth, unknown>;
}
