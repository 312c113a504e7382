import type {
	ClaimDeliveriesOptions,
	WebhookAttemptRecord,
	WebhookDeliveryRecord,
	WebhookDeliveryStore,
} from "@as2kit/core/store";
import {
	and,
	asc,
	count,
	desc,
	eq,
	gte,
	inArray,
	isNotNull,
	isNull,
	lt,
	not,
	notInArray,
	or,
	type SQL,
	sql,
} from "drizzle-orm";
import type { Db, Runner } from "../connection.ts";
import { webhookAttempts, webhookDeliveries } from "../schema.ts";
import { pageOf, totalOver, window } from "./pg-page.ts";

type Row = typeof webhookDeliveries.$inferSelect;

const toDelivery = ({ seq: _seq, ...row }: Row): WebhookDeliveryRecord => row as WebhookDeliveryRecord;
const toAttempt = (row: typeof webhookAttempts.$inferSelect): WebhookAttemptRecord => row;
/** The part of the event kind before the dot: `tenant` of `tenant.created`. */
const eventCategory = sql`split_part(${webhookDeliveries.eventKind}, '.', 1)`;
const first = ([row]: Row[]) => (row ? toDelivery(row) : null);
const dueOrder = (a: Row, b: Row) =>
	(a.nextAttemptAt?.getTime() ?? 0) - (b.nextAttemptAt?.getTime() ?? 0) || a.seq - b.seq;

const byTenant = (tenantId: string, id: string) =>
	and(eq(webhookDeliveries.tenantId, tenantId), eq(webhookDeliveries.id, id));
const pendingOf = (tenantId: string, endpointId: string) =>
	and(
		eq(webhookDeliveries.tenantId, tenantId),
		eq(webhookDeliveries.endpointId, endpointId),
		eq(webhookDeliveries.status, "pending"),
	);
/** Not held by an attempt at `now`: never leased, or the lease ran out. */
const unheld = (now: Date) => or(isNull(webhookDeliveries.lockedUntil), lt(webhookDeliveries.lockedUntil, now));
const instant = (at: Date) => sql`${at.toISOString()}::timestamptz`;

/** A delivery `d` a claim may take at `now`: pending, due, and not held. */
const dueAt = (now: Date) =>
	sql`d.status = 'pending' and d.next_attempt_at <= ${instant(now)} and (d.locked_until is null or d.locked_until < ${instant(now)})`;

/**
 * Not behind another pending delivery with its ordering key to its endpoint (a message's events
 * go out one at a time, in order: the port's orderingKey). An index seek per candidate.
 */
const firstOfItsKey = sql`(d.ordering_key is null or not exists (
	select 1 from webhook_deliveries p
	where p.endpoint_id = d.endpoint_id and p.ordering_key = d.ordering_key and p.status = 'pending' and p.seq < d.seq))`;

/**
 * Takes the claim lock of every active endpoint with a due delivery, until the transaction
 * ends, and returns their ids. The per-endpoint cap counts the deliveries held: without the
 * lock, two claimers at READ COMMITTED would count the same free places and both fill them
 * (SKIP LOCKED only keeps them from taking the same rows). Claims of the same endpoints
 * therefore run one after the other, each a few index seeks long. The locks are taken in key
 * order, so two claimers never deadlock on them.
 */
async function lockDueEndpoints(db: Db, now: Date): Promise<string[]> {
	const result = await db.execute<{ id: string }>(sql`
		select due.id, pg_advisory_xact_lock(due.key) from (
			select e.id, hashtext('webhook-endpoint:' || e.id) as key
			from webhook_endpoints e
			where e.active and exists (select 1 from webhook_deliveries d where d.endpoint_id = e.id and ${dueAt(now)})
			order by key
		) due`);
	return result.rows.map((row) => row.id);
}

/**
 * The `seq`s a claim takes, earliest due first, each endpoint capped (see the port's
 * claimDue). Run after lockDueEndpoints, in a statement of its own: its snapshot then sees
 * every claim committed before the locks were granted, so the held count is exact.
 *
 * Driven by endpoints, so its cost does not grow with the backlog: the held deliveries are
 * counted once (few: the attempts in flight), then each locked endpoint with room gets an
 * index seek for at most its free places, and an endpoint at its cap adds no row at all.
 * (The due index ends at next_attempt_at: deliveries due at one same instant are sorted by
 * seq, which reads all of them.)
 */
function pickDue(endpointIds: string[], { limit, perEndpointLimit, now }: ClaimDeliveriesOptions): SQL {
	return sql`
		with held as (
			select h.endpoint_id, count(*) as n from webhook_deliveries h
			where h.status = 'pending' and h.locked_until >= ${instant(now)}
			group by h.endpoint_id
		)
		select due.seq from webhook_endpoints e
		left join held on held.endpoint_id = e.id
		cross join lateral (
			select d.seq, d.next_attempt_at from webhook_deliveries d
			where d.endpoint_id = e.id and ${dueAt(now)} and ${firstOfItsKey}
			order by d.next_attempt_at, d.seq
			limit greatest(${perEndpointLimit}::int - coalesce(held.n, 0), 0)
			for update skip locked
		) due
		where e.id = any(${sql.param(endpointIds)}::text[]) and e.active
		order by due.next_attempt_at, due.seq
		limit ${limit}::int`;
}

export function createWebhookDeliveryStore(runner: Runner): WebhookDeliveryStore {
	return {
		create: (delivery) =>
			runner
				.run((db) =>
					db
						.insert(webhookDeliveries)
						.values(delivery)
						.onConflictDoNothing({ target: [webhookDeliveries.eventId, webhookDeliveries.endpointId] })
						.returning({ seq: webhookDeliveries.seq }),
				)
				.then((rows) => rows.length === 1),
		get: (tenantId, id) =>
			runner.run((db) => db.select().from(webhookDeliveries).where(byTenant(tenantId, id))).then(first),
		list: (tenantId, endpointId, page, filter) => {
			const conditions: SQL[] = [
				eq(webhookDeliveries.tenantId, tenantId),
				eq(webhookDeliveries.endpointId, endpointId),
			];
			if (filter?.status) conditions.push(eq(webhookDeliveries.status, filter.status));
			if (filter?.exceptCategories?.length) {
				conditions.push(notInArray(eventCategory, [...filter.exceptCategories]));
			}
			const where = and(...conditions);
			const { limit, offset } = window(page);
			return runner.run(async (db) => {
				const rows = await db
					.select({ row: webhookDeliveries, total: totalOver() })
					.from(webhookDeliveries)
					.where(where)
					.orderBy(desc(webhookDeliveries.seq))
					.limit(limit)
					.offset(offset);
				return pageOf(
					rows,
					({ row }) => toDelivery(row),
					offset,
					async () => {
						const [counted] = await db.select({ n: count() }).from(webhookDeliveries).where(where);
						return counted?.n ?? 0;
					},
				);
			});
		},
		listAttempts: async (tenantId, deliveryIds) => {
			if (deliveryIds.length === 0) return [];
			const rows = await runner.run((db) =>
				db
					.select()
					.from(webhookAttempts)
					.where(and(eq(webhookAttempts.tenantId, tenantId), inArray(webhookAttempts.deliveryId, [...deliveryIds])))
					.orderBy(asc(webhookAttempts.deliveryId), asc(webhookAttempts.attempt)),
			);
			return rows.map(toAttempt);
		},
		claimDue: (options) =>
			runner.atomic(async (db) => {
				const endpointIds = await lockDueEndpoints(db, options.now);
				if (endpointIds.length === 0) return [];
				// array(…) runs the pick once (an InitPlan), never again per row of the update.
				const rows = await db
					.update(webhookDeliveries)
					.set({ lockedBy: options.lockedBy, lockedUntil: options.lockedUntil })
					.where(sql`${webhookDeliveries.seq} = any(array(${pickDue(endpointIds, options)}))`)
					.returning();
				return rows.sort(dueOrder).map(toDelivery);
			}),
		finishAttempt: (tenantId, id, lockedBy, { attempt, status, nextAttemptAt, updatedAt }) =>
			runner.atomic(async (db) => {
				const held = await db
					.update(webhookDeliveries)
					.set({
						status,
						nextAttemptAt,
						attempts: attempt.attempt,
						lastAttemptAt: attempt.attemptedAt,
						lastResponseStatus: attempt.responseStatus,
						lastError: attempt.error,
						lockedBy: null,
						lockedUntil: null,
						updatedAt,
					})
					.where(and(byTenant(tenantId, id), eq(webhookDeliveries.lockedBy, lockedBy)))
					.returning({ seq: webhookDeliveries.seq });
				if (held.length === 0) return false;
				await db.insert(webhookAttempts).values(attempt);
				return true;
			}),
		release: async (tenantId, id, lockedBy, nextAttemptAt) => {
			await runner.run((db) =>
				db
					.update(webhookDeliveries)
					.set({ lockedBy: null, lockedUntil: null, nextAttemptAt })
					.where(and(byTenant(tenantId, id), eq(webhookDeliveries.lockedBy, lockedBy))),
			);
		},
		pause: (tenantId, endpointId, now) =>
			runner
				.run((db) =>
					db
						.update(webhookDeliveries)
						.set({ nextAttemptAt: null })
						.where(and(pendingOf(tenantId, endpointId), isNotNull(webhookDeliveries.nextAttemptAt), unheld(now))),
				)
				.then((result) => result.rowCount ?? 0),
		resume: (tenantId, endpointId, at) =>
			runner
				.run((db) =>
					db
						.update(webhookDeliveries)
						.set({ nextAttemptAt: at })
						.where(and(pendingOf(tenantId, endpointId), isNull(webhookDeliveries.nextAttemptAt), unheld(at))),
				)
				.then((result) => result.rowCount ?? 0),
		requeue: (tenantId, id, at) =>
			runner
				.run((db) =>
					db
						.update(webhookDeliveries)
						.set({ status: "pending", nextAttemptAt: at, lockedBy: null, lockedUntil: null, updatedAt: at })
						.where(
							and(
								byTenant(tenantId, id),
								not(
									and(
										eq(webhookDeliveries.status, "pending"),
										isNotNull(webhookDeliveries.lockedUntil),
										gte(webhookDeliveries.lockedUntil, at),
									)!,
								),
							),
						)
						.returning(),
				)
				.then(first),
		purgeFinished: (before, limit) =>
			runner.atomic(async (db) => {
				// SKIP LOCKED: a delivery being requeued right now is not purged, and two purgers
				// split the work instead of waiting on each other.
				const ids = await db
					.select({ id: webhookDeliveries.id })
					.from(webhookDeliveries)
					.where(
						and(inArray(webhookDeliveries.status, ["succeeded", "failed"]), lt(webhookDeliveries.updatedAt, before)),
					)
					.orderBy(asc(webhookDeliveries.updatedAt))
					.limit(limit)
					.for("update", { skipLocked: true })
					.then((rows) => rows.map((row) => row.id));
				if (ids.length === 0) return 0;
				await db.delete(webhookAttempts).where(inArray(webhookAttempts.deliveryId, ids));
				const gone = await db
					.delete(webhookDeliveries)
					.where(inArray(webhookDeliveries.id, ids))
					.returning({ seq: webhookDeliveries.seq });
				return gone.length;
			}),
	};
}
