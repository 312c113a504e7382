import type { WebhookAttemptRecord, WebhookDeliveryRecord, WebhookDeliveryStore } from "@as2kit/core/store";
import type Database from "better-sqlite3";
import { and, asc, count, desc, eq, inArray, isNotNull, isNull, lt, notInArray, or, type SQL, sql } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { webhookAttempts, webhookDeliveries } from "../schema.ts";
import { orNull } from "./accounts.ts";
import { window } from "./pagination.ts";

const toDelivery = ({ seq: _seq, ...row }: typeof webhookDeliveries.$inferSelect): WebhookDeliveryRecord =>
	row as WebhookDeliveryRecord;
const toAttempt = (row: typeof webhookAttempts.$inferSelect): WebhookAttemptRecord => row;
/** The part of the event kind before the dot: `tenant` of `tenant.created`. */
const eventCategory = sql`substr(${webhookDeliveries.eventKind}, 1, instr(${webhookDeliveries.eventKind}, '.') - 1)`;

const byTenant = (tenantId: string, id: string) =>
	and(eq(webhookDeliveries.tenantId, tenantId), eq(webhookDeliveries.id, id));
const ofEndpoint = (tenantId: string, endpointId: string) =>
	and(
		eq(webhookDeliveries.tenantId, tenantId),
		eq(webhookDeliveries.endpointId, endpointId),
		eq(webhookDeliveries.status, "pending"),
	);

/**
 * The deliveries a claim takes, earliest due first, each endpoint capped. The cap is decided
 * here, at claim time, so a dispatcher never takes a delivery it may not send yet (which would
 * have to bounce back to the queue and wait again).
 *
 * Driven by endpoints, so its cost does not grow with the backlog: the held deliveries are
 * counted once (few: the attempts in flight), then each active endpoint with room gets an
 * index seek for its earliest due deliveries, at most its free places. A single ranked query
 * over all due rows, or one that skips capped endpoints' rows while reading in due order,
 * costs a scan of the backlog on every claim: quadratic over a burst to one endpoint. And an
 * endpoint at its cap never fills a claim, so a slow one cannot starve the others.
 *
 * It runs inside the connection's transaction for the operation (SqliteConnection), and a
 * concurrent writer on another connection makes it fail whole and run again, so two
 * claimers, even in two processes, never take one delivery. The PostgreSQL adapter does the
 * same in one statement, with LATERAL and FOR UPDATE SKIP LOCKED.
 */
function pickDue(
	client: Database.Database,
	{ limit, perEndpointLimit, now }: { limit: number; perEndpointLimit: number; now: number },
): number[] {
	const q = statements(client);
	const held = new Map(q.held.all(now).map((row) => [row.endpoint_id, row.n]));
	const due: DueRow[] = [];
	for (const { id } of q.activeEndpoints.all()) {
		const free = perEndpointLimit - (held.get(id) ?? 0);
		if (free > 0) due.push(...q.dueOf.all(id, now, now, free));
	}
	due.sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.seq - b.seq);
	return due.slice(0, limit).map((row) => row.seq);
}

interface DueRow {
	seq: number;
	next_attempt_at: number;
}

const cache = new WeakMap<Database.Database, ReturnType<typeof prepare>>();
const statements = (client: Database.Database) => {
	const cached = cache.get(client);
	if (cached) return cached;
	const prepared = prepare(client);
	cache.set(client, prepared);
	return prepared;
};

// Prepared once per connection: a claim runs them once per active endpoint.
function prepare(client: Database.Database) {
	return {
		held: client.prepare<[number], { endpoint_id: string; n: number }>(
			"select endpoint_id, count(*) as n from webhook_deliveries where status = 'pending' and locked_until >= ? group by endpoint_id",
		),
		activeEndpoints: client.prepare<[], { id: string }>("select id from webhook_endpoints where active = 1"),
		dueOf: client.prepare<[string, number, number, number], DueRow>(
			// Not behind another pending delivery with its ordering key (the port's orderingKey).
			`select d.seq, d.next_attempt_at from webhook_deliveries d where d.endpoint_id = ? and d.status = 'pending' and d.next_attempt_at <= ? and (d.locked_until is null or d.locked_until < ?)
				and (d.ordering_key is null or not exists (select 1 from webhook_deliveries p where p.endpoint_id = d.endpoint_id and p.ordering_key = d.ordering_key and p.status = 'pending' and p.seq < d.seq))
				order by d.next_attempt_at, d.seq limit ?`,
		),
	};
}

/** Not held by an attempt at `now`: never leased, or the lease ran out. */
const unheld = (now: Date) => or(isNull(webhookDeliveries.lockedUntil), lt(webhookDeliveries.lockedUntil, now));

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
				if (filter?.exceptCategories?.length) {
					conditions.push(notInArray(eventCategory, [...filter.exceptCategories]));
				}
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
			exec((db) => {
				const seqs = pickDue(db.$client, { limit, perEndpointLimit, now: now.getTime() });
				if (seqs.length === 0) return [];
				return db
					.update(webhookDeliveries)
					.set({ lockedBy, lockedUntil })
					.where(inArray(webhookDeliveries.seq, seqs))
					.returning()
					.all()
					.sort((a, b) => (a.nextAttemptAt?.getTime() ?? 0) - (b.nextAttemptAt?.getTime() ?? 0) || a.seq - b.seq)
					.map(toDelivery);
			}),
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
		release: (tenantId, id, lockedBy, nextAttemptAt) =>
			exec(
				(db) =>
					void db
						.update(webhookDeliveries)
						.set({ lockedBy: null, lockedUntil: null, nextAttemptAt })
						.where(and(byTenant(tenantId, id), eq(webhookDeliveries.lockedBy, lockedBy)))
						.run(),
			),
		pause: (tenantId, endpointId, now) =>
			exec(
				(db) =>
					db
						.update(webhookDeliveries)
						.set({ nextAttemptAt: null })
						.where(and(ofEndpoint(tenantId, endpointId), isNotNull(webhookDeliveries.nextAttemptAt), unheld(now)))
						.run().changes,
			),
		resume: (tenantId, endpointId, at) =>
			exec(
				(db) =>
					db
						.update(webhookDeliveries)
						.set({ nextAttemptAt: at })
						.where(and(ofEndpoint(tenantId, endpointId), isNull(webhookDeliveries.nextAttemptAt), unheld(at)))
						.run().changes,
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
