import type { MessageRecord, MessageStore, PartnerTraffic } from "@as2kit/core/store";
import { and, asc, count, desc, eq, gt, inArray, isNotNull, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { rawTable } from "../raw-table.ts";
import { messages } from "../schema.ts";
import { window } from "./pagination.ts";

// Every message is written once and read by each job: plain SQL on the hot path (raw-table.ts).
const RAW = rawTable(messages);
const BY_ID = `select ${RAW.columns} from "messages" where "id" = ?`;
const toMessage = (row: typeof messages.$inferSelect): MessageRecord => row as MessageRecord;

export function createMessageStore(exec: Exec): MessageStore {
	return {
		create: (message) => exec((db) => void db.$client.prepare(RAW.insertSql).run(...RAW.toParams(message))),
		get: (tenantId, id) =>
			exec((db) => {
				const row = db
					.select()
					.from(messages)
					.where(and(eq(messages.id, id), eq(messages.tenantId, tenantId)))
					.get();
				return row ? toMessage(row) : null;
			}),
		getById: (id) =>
			exec((db) => {
				const row = db.$client.prepare(BY_ID).get(id) as Record<string, unknown> | undefined;
				return row ? toMessage(RAW.fromRow(row)) : null;
			}),
		findByMessageId: (tenantId, messageId, filter) =>
			exec((db) => {
				const conditions: SQL[] = [
					eq(messages.tenantId, tenantId),
					eq(messages.messageId, messageId),
					eq(messages.direction, filter.direction),
				];
				if (filter.partnerId) conditions.push(eq(messages.partnerId, filter.partnerId));
				const row = db
					.select()
					.from(messages)
					.where(and(...conditions))
					.orderBy(desc(messages.createdAt))
					.get();
				return row ? toMessage(row) : null;
			}),
		list: (tenantId, filter, page) =>
			exec((db) => {
				const c: SQL[] = [eq(messages.tenantId, tenantId)];
				if (filter.partnerId) c.push(eq(messages.partnerId, filter.partnerId));
				if (filter.status) c.push(eq(messages.status, filter.status));
				if (filter.direction) c.push(eq(messages.direction, filter.direction));
				if (filter.environment) c.push(eq(messages.environment, filter.environment));
				if (filter.fromDate) c.push(gt(messages.createdAt, filter.fromDate));
				if (filter.toDate) c.push(lt(messages.createdAt, filter.toDate));
				if (filter.contentType) c.push(eq(messages.contentType, filter.contentType));
				if (filter.hasErrors !== undefined)
					c.push(filter.hasErrors ? isNotNull(messages.errorCode) : isNull(messages.errorCode));
				if (filter.mdnStatus) c.push(eq(messages.mdnStatus, filter.mdnStatus));
				if (filter.encrypted !== undefined) c.push(eq(messages.encrypted, filter.encrypted));
				if (filter.signed !== undefined) c.push(eq(messages.signed, filter.signed));
				if (filter.search) {
					const pattern = `%${filter.search.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
					c.push(
						or(
							sql`lower(${messages.subject}) LIKE ${pattern} ESCAPE '\\'`,
							sql`lower(${messages.messageId}) LIKE ${pattern} ESCAPE '\\'`,
						)!,
					);
				}
				const where = and(...c);
				const { limit, offset } = window(page);
				const items = db
					.select()
					.from(messages)
					.where(where)
					.orderBy(desc(messages.createdAt), desc(messages.id))
					.limit(limit)
					.offset(offset)
					.all()
					.map(toMessage);
				const total = db.select({ n: count() }).from(messages).where(where).get()?.n ?? 0;
				return { items, total };
			}),
		transition: (id, from, patch) =>
			exec((db) => {
				const row = db
					.update(messages)
					.set(patch)
					.where(and(eq(messages.id, id), inArray(messages.status, [...from])))
					.returning()
					.get();
				return row ? toMessage(row) : null;
			}),
		update: (id, patch) =>
			exec((db) => {
				const row = db.update(messages).set(patch).where(eq(messages.id, id)).returning().get();
				return row ? toMessage(row) : null;
			}),
		listMdnOverdue: (now, limit) =>
			exec((db) =>
				db
					.select()
					.from(messages)
					.where(and(eq(messages.mdnStatus, "pending"), eq(messages.status, "sent"), lt(messages.mdnDeadline, now)))
					.orderBy(asc(messages.mdnDeadline))
					.limit(limit)
					.all()
					.map(toMessage),
			),
		partnerTraffic: (tenantId, partnerId, since) =>
			exec((db): PartnerTraffic => {
				const scope = and(
					eq(messages.tenantId, tenantId),
					eq(messages.partnerId, partnerId),
					gt(messages.createdAt, since),
				);
				const outbound = sql`${messages.direction} = 'outbound'`;
				const inbound = sql`${messages.direction} = 'inbound'`;
				const succeeded = sql`(${messages.status} = 'delivered' OR (${messages.status} = 'sent' AND ${messages.mdnStatus} = 'none'))`;
				const totals = db
					.select({
						sent: sql<number>`coalesce(sum(case when ${outbound} then 1 else 0 end), 0)`,
						received: sql<number>`coalesce(sum(case when ${inbound} then 1 else 0 end), 0)`,
						outboundSucceeded: sql<number>`coalesce(sum(case when ${outbound} and ${succeeded} then 1 else 0 end), 0)`,
						outboundFailed: sql<number>`coalesce(sum(case when ${outbound} and ${messages.status} = 'failed' then 1 else 0 end), 0)`,
						inboundFailed: sql<number>`coalesce(sum(case when ${inbound} and ${messages.status} = 'failed' then 1 else 0 end), 0)`,
						avgOutbound: sql<
							number | null
						>`avg(case when ${outbound} and ${messages.deliveredAt} is not null then (${messages.deliveredAt} - ${messages.createdAt}) / 1000.0 end)`,
						avgInbound: sql<
							number | null
						>`avg(case when ${inbound} then (${messages.updatedAt} - ${messages.createdAt}) / 1000.0 end)`,
						last: sql<number | null>`max(${messages.createdAt})`,
					})
					.from(messages)
					.where(scope)
					.get()!;
				const day = sql<string>`strftime('%Y-%m-%d', ${messages.createdAt} / 1000, 'unixepoch')`;
				const days = db
					.select({
						date: day,
						sent: sql<number>`sum(case when ${outbound} then 1 else 0 end)`,
						received: sql<number>`sum(case when ${inbound} then 1 else 0 end)`,
						failures: sql<number>`sum(case when ${messages.status} = 'failed' then 1 else 0 end)`,
					})
					.from(messages)
					.where(scope)
					.groupBy(day)
					.orderBy(day)
					.all();
				return {
					sent: totals.sent,
					received: totals.received,
					outboundSucceeded: totals.outboundSucceeded,
					outboundFailed: totals.outboundFailed,
					inboundFailed: totals.inboundFailed,
					avgOutboundSeconds: totals.avgOutbound,
					avgInboundSeconds: totals.avgInbound,
					lastMessageAt: totals.last === null ? null : new Date(totals.last),
					days,
				};
			}),
	};
}
