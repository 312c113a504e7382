import type { WebhookAttemptRecord, WebhookDeliveryRecord, WebhookDeliveryStore } from "@as2kit/core/store";
import { and, asc, count, desc, eq, inArray, lt, type SQL, sql } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { webhookAttempts, webhookDeliveries } from "../schema.ts";
import { orNull } from "./accounts.ts";
import { window } from "./pagination.ts";

const toDelivery = ({ seq: _seq, ...row }: typeof webhookDeliveries.$inferSelect): WebhookDeliveryRecord =>
	row as WebhookDeliveryRecord;
const toAttempt = (row: typeof webhookAttempts.$inferSelect): WebhookAttemptRecord => row;

const byTenant = (tenantId: string, id: string) =>
	and(eq(webhookDeliveries.tenantId, tenantId), eq(webhookDeliveries.id, id));

/**
 * The due deliveries a claim may take. Each endpoint's due deliveries are ranked by due time,
 * and an endpoint gets only as many as its cap leaves after the ones already held: the cap is
 * decided here, at claim time, so a worker never takes a delivery it may not send (which would
 * then have to bounce back to the queue and wait again). The enclosing UPDATE runs as one
 * statement under SQLite's single write lock, so two claimers, even in two processes, see each
 * other's leases; the PostgreSQL adapter gets the same by locking the endpoint rows it ranks
 * (FOR UPDATE SKIP LOCKED) in the same statement.
 */
function dueSeqs(options: { limit: number; perEndpointLimit: number; now: number }): SQL {
	return sql`
		select due.seq from (
			select d.seq, d.endpoint_id, d.next_attempt_at,
				row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.seq) as rank
			from webhook_deliveries d
			join webhook_endpoints e on e.id = d.endpoint_id and e.active = 1
			where d.status = 'pending' and d.next_attempt_at <= ${options.now}
				and (d.locked_until is null or d.locked_until < ${options.now})
		) due
		where due.rank <= ${options.perEndpointLimit} - (
			select count(*) from webhook_deliveries held
			where held.endpoint_id = due.endpoint_id and held.status = 'pending' and held.locked_until >= ${options.now}
		)
		order by due.next_attempt_at, due.seq
		limit ${options.limit}`;
}

export function createWebhookDeliveryStore(exec: Exec): WebhookDeliveryStore {
	return {
		create: (delivery) =>
			exec(
				(db) =>
					db
						.insert(webhookDeliveries)
						.values(delivery)
						.onConflictDoNothing({ target: [webhookDeliveries.eventId, webhookDeliveries.endpointId] })
						.run().changes === 1,
			),
		get: (tenantId, id) =>
			exec((db) => db.select().from(webhookDeliveries).where(byTenant(tenantId, id)).get()).then(orNull(toDelivery)),
		list: (tenantId, endpointId, page, filter) =>
			exec((db) => {
				const conditions: SQL[] = [
					eq(webhookDeliveries.tenantId, tenantId),
					eq(webhookDeliveries.endpointId, endpointId),
				];
				if (filter?.status) conditions.push(eq(webhookDeliveries.status, filter.status));
				const where = and(...conditions);
				const { limit, offset } = window(page);
				const items = db
					.select()
					.from(webhookDeliveries)
					.where(where)
					.orderBy(desc(webhookDeliveries.seq))
					.limit(limit)
					.offset(offset)
					.all();
				const total = db.select({ n: count() }).from(webhookDeliveries).where(where).get()?.n ?? 0;
				return { items: items.map(toDelivery), total };
			}),
		listAttempts: (tenantId, deliveryIds) =>
			deliveryIds.length === 0
				? Promise.resolve([])
				: exec((db) =>
						db
							.select()
							.from(webhookAttempts)
							.where(and(eq(webhookAttempts.tenantId, tenantId), inArray(webhookAttempts.deliveryId, [...deliveryIds])))
							.orderBy(asc(webhookAttempts.deliveryId), asc(webhookAttempts.attempt))
							.all()
							.map(toAttempt),
					),
		claimDue: ({ limit, perEndpointLimit, lockedBy, now, lockedUntil }) =>
			exec((db) =>
				db
					.update(webhookDeliveries)
					.set({ lockedBy, lockedUntil })
					.where(sql`${webhookDeliveries.seq} in (${dueSeqs({ limit, perEndpointLimit, now: now.getTime() })})`)
					.returning()
					.all()
					.sort((a, b) => (a.nextAttemptAt?.getTime() ?? 0) - (b.nextAttemptAt?.getTime() ?? 0) || a.seq - b.seq)
					.map(toDelivery),
			),
		finishAttempt: (tenantId, id, lockedBy, { attempt, status, nextAttemptAt, updatedAt }) =>
			exec((db) =>
				db.transaction(
					(tx) => {
						const held = tx
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
							.run().changes;
						if (held === 0) return false;
						tx.insert(webhookAttempts).values(attempt).run();
						return true;
					},
					{ behavior: "immediate" },
				),
			),
		release: (tenantId, id, lockedBy) =>
			exec(
				(db) =>
					void db
						.update(webhookDeliveries)
						.set({ lockedBy: null, lockedUntil: null })
						.where(and(byTenant(tenantId, id), eq(webhookDeliveries.lockedBy, lockedBy)))
						.run(),
			),
		requeue: (tenantId, id, at) =>
			exec((db) =>
				db
					.update(webhookDeliveries)
					.set({ status: "pending", nextAttemptAt: at, lockedBy: null, lockedUntil: null, updatedAt: at })
					.where(
						and(
							byTenant(tenantId, id),
							sql`not (${webhookDeliveries.status} = 'pending' and ${webhookDeliveries.lockedUntil} is not null and ${webhookDeliveries.lockedUntil} >= ${at.getTime()})`,
						),
					)
					.returning()
					.get(),
			).then(orNull(toDelivery)),
		purgeFinished: (before, limit) =>
			exec((db) =>
				db.transaction(
					(tx) => {
						const ids = tx
							.select({ id: webhookDeliveries.id })
							.from(webhookDeliveries)
							.where(
								and(
									inArray(webhookDeliveries.status, ["succeeded", "failed"]),
									lt(webhookDeliveries.updatedAt, before),
								),
							)
							.orderBy(asc(webhookDeliveries.updatedAt))
							.limit(limit)
							.all()
							.map((row) => row.id);
						if (ids.length === 0) return 0;
						tx.delete(webhookAttempts).where(inArray(webhookAttempts.deliveryId, ids)).run();
						return tx.delete(webhookDeliveries).where(inArray(webhookDeliveries.id, ids)).run().changes;
					},
					{ behavior: "immediate" },
				),
			),
	};
}
