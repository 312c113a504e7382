import type { WebhookEndpointRecord, WebhookEndpointStats, WebhookEndpointStore } from "@as2kit/core/store";
import { and, asc, count, eq, sql } from "drizzle-orm";
import type { Runner } from "../connection.ts";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "../schema.ts";
import { pageOf, totalOver, window } from "./pg-page.ts";

type Row = typeof webhookEndpoints.$inferSelect;

const toEndpoint = ({
	attemptCount: _a,
	successCount: _s,
	responseTimeTotalMs: _r,
	responseCount: _c,
	lastAttemptAt: _l,
	...row
}: Row): WebhookEndpointRecord => row;
const first = ([row]: Row[]) => (row ? toEndpoint(row) : null);

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
const ofTenant = (tenantId: string) => eq(webhookEndpoints.tenantId, tenantId);
const oldestFirst = [asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id)];
const instant = (at: Date) => sql`${at.toISOString()}::timestamptz`;

export function createWebhookEndpointStore(runner: Runner): WebhookEndpointStore {
	return {
		create: async (endpoint) => {
			await runner.run((db) => db.insert(webhookEndpoints).values(endpoint));
		},
		get: (tenantId, id) =>
			runner.run((db) => db.select().from(webhookEndpoints).where(byTenant(tenantId, id))).then(first),
		list: (tenantId, page) => {
			const { limit, offset } = window(page);
			return runner.run(async (db) => {
				const rows = await db
					.select({ row: webhookEndpoints, total: totalOver() })
					.from(webhookEndpoints)
					.where(ofTenant(tenantId))
					.orderBy(...oldestFirst)
					.limit(limit)
					.offset(offset);
				return pageOf(
					rows,
					({ row }) => toEndpoint(row),
					offset,
					async () => {
						const [counted] = await db.select({ n: count() }).from(webhookEndpoints).where(ofTenant(tenantId));
						return counted?.n ?? 0;
					},
				);
			});
		},
		listActive: (tenantId) =>
			runner
				.run((db) =>
					db
						.select()
						.from(webhookEndpoints)
						.where(and(ofTenant(tenantId), eq(webhookEndpoints.active, true)))
						.orderBy(...oldestFirst),
				)
				.then((rows) => rows.map(toEndpoint)),
		update: (tenantId, id, patch) =>
			runner.run((db) => db.update(webhookEndpoints).set(patch).where(byTenant(tenantId, id)).returning()).then(first),
		delete: (tenantId, id) =>
			runner.atomic(async (db) => {
				const gone = await db
					.delete(webhookEndpoints)
					.where(byTenant(tenantId, id))
					.returning({ id: webhookEndpoints.id });
				if (gone.length === 0) return false;
				// Deliveries before attempts: deleting a delivery waits for a finishAttempt that holds
				// it, and the next statement (a new snapshot at READ COMMITTED) sees the attempt it wrote.
				await db.delete(webhookDeliveries).where(eq(webhookDeliveries.endpointId, id));
				await db.delete(webhookAttempts).where(eq(webhookAttempts.endpointId, id));
				return true;
			}),
		recordAttempt: (tenantId, id, { succeeded, responseTimeMs, at }) =>
			runner
				.run((db) =>
					db
						.update(webhookEndpoints)
						.set({
							attemptCount: sql`${webhookEndpoints.attemptCount} + 1`,
							successCount: sql`${webhookEndpoints.successCount} + ${succeeded ? 1 : 0}`,
							responseTimeTotalMs: sql`${webhookEndpoints.responseTimeTotalMs} + ${responseTimeMs ?? 0}`,
							responseCount: sql`${webhookEndpoints.responseCount} + ${responseTimeMs === null ? 0 : 1}`,
							// greatest() ignores NULL: an attempt that finishes late does not move it back.
							lastAttemptAt: sql`greatest(${webhookEndpoints.lastAttemptAt}, ${instant(at)})`,
							// One statement, so concurrent attempts cannot lose the start of a streak.
							failingSince: succeeded ? null : sql`coalesce(${webhookEndpoints.failingSince}, ${instant(at)})`,
						})
						.where(byTenant(tenantId, id))
						.returning(),
				)
				.then(first),
		stats: (tenantId) =>
			runner
				.run((db) =>
					db
						.select()
						.from(webhookEndpoints)
						.where(ofTenant(tenantId))
						.orderBy(...oldestFirst),
				)
				.then((rows) => rows.map(toStats)),
	};
}
