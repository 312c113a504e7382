import type { WebhookEndpointRecord, WebhookEndpointStats, WebhookEndpointStore } from "@as2kit/core/store";
import { and, asc, count, eq, sql } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "../schema.ts";
import { orNull } from "./accounts.ts";
import { window } from "./pagination.ts";

type Row = typeof webhookEndpoints.$inferSelect;

const toEndpoint = ({
	attemptCount: _a,
	successCount: _s,
	responseTimeTotalMs: _r,
	responseCount: _c,
	lastAttemptAt: _l,
	...row
}: Row): WebhookEndpointRecord => row;

const toStats = (row: Row): WebhookEndpointStats => ({
	endpointId: row.id,
	url: row.url,
	attempts: row.attemptCount,
	succeeded: row.successCount,
	failed: row.attemptCount - row.successCount,
	responseTimeTotalMs: row.responseTimeTotalMs,
	responses: row.responseCount,
	lastAttemptAt: row.lastAttemptAt,
});

const byTenant = (tenantId: string, id: string) =>
	and(eq(webhookEndpoints.tenantId, tenantId), eq(webhookEndpoints.id, id));
const oldestFirst = [asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id)];

export function createWebhookEndpointStore(exec: Exec): WebhookEndpointStore {
	return {
		create: (endpoint) => exec((db) => void db.insert(webhookEndpoints).values(endpoint).run()),
		get: (tenantId, id) =>
			exec((db) => db.select().from(webhookEndpoints).where(byTenant(tenantId, id)).get()).then(orNull(toEndpoint)),
		list: (tenantId, page) =>
			exec((db) => {
				const where = eq(webhookEndpoints.tenantId, tenantId);
				const { limit, offset } = window(page);
				const items = db
					.select()
					.from(webhookEndpoints)
					.where(where)
					.orderBy(...oldestFirst)
					.limit(limit)
					.offset(offset)
					.all();
				const total = db.select({ n: count() }).from(webhookEndpoints).where(where).get()?.n ?? 0;
				return { items: items.map(toEndpoint), total };
			}),
		listActive: (tenantId) =>
			exec((db) =>
				db
					.select()
					.from(webhookEndpoints)
					.where(and(eq(webhookEndpoints.tenantId, tenantId), eq(webhookEndpoints.active, true)))
					.orderBy(...oldestFirst)
					.all()
					.map(toEndpoint),
			),
		update: (tenantId, id, patch) =>
			exec((db) => db.update(webhookEndpoints).set(patch).where(byTenant(tenantId, id)).returning().get()).then(
				orNull(toEndpoint),
			),
		delete: (tenantId, id) =>
			exec((db) =>
				db.transaction(
					(tx) => {
						if (tx.delete(webhookEndpoints).where(byTenant(tenantId, id)).run().changes === 0) return false;
						tx.delete(webhookAttempts).where(eq(webhookAttempts.endpointId, id)).run();
						tx.delete(webhookDeliveries).where(eq(webhookDeliveries.endpointId, id)).run();
						return true;
					},
					{ behavior: "immediate" },
				),
			),
		recordAttempt: (tenantId, id, { succeeded, responseTimeMs, at }) =>
			exec((db) =>
				db
					.update(webhookEndpoints)
					.set({
						attemptCount: sql`${webhookEndpoints.attemptCount} + 1`,
						successCount: sql`${webhookEndpoints.successCount} + ${succeeded ? 1 : 0}`,
						responseTimeTotalMs: sql`${webhookEndpoints.responseTimeTotalMs} + ${responseTimeMs ?? 0}`,
						responseCount: sql`${webhookEndpoints.responseCount} + ${responseTimeMs === null ? 0 : 1}`,
						lastAttemptAt: sql`case when ${webhookEndpoints.lastAttemptAt} is null or ${webhookEndpoints.lastAttemptAt} < ${at.getTime()} then ${at.getTime()} else ${webhookEndpoints.lastAttemptAt} end`,
						// One statement, so concurrent attempts cannot lose the start of a streak.
						failingSince: succeeded ? null : sql`coalesce(${webhookEndpoints.failingSince}, ${at.getTime()})`,
					})
					.where(byTenant(tenantId, id))
					.returning()
					.get(),
			).then(orNull(toEndpoint)),
		stats: (tenantId) =>
			exec((db) =>
				db
					.select()
					.from(webhookEndpoints)
					.where(eq(webhookEndpoints.tenantId, tenantId))
					.orderBy(...oldestFirst)
					.all()
					.map(toStats),
			),
	};
}
