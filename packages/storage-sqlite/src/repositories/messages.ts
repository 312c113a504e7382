import { formatId, type MessageRecord, type MessageStore, type PartnerTraffic } from "@as2kit/core/store";
import { and, asc, eq, gt, lt, sql } from "drizzle-orm";
import type { Db, Exec } from "../connection.ts";
import { rawTable } from "../raw-table.ts";
import { messages } from "../schema.ts";
import { NEXT_VALUE } from "./ids.ts";
import { listMessages } from "./message-list.ts";

// Every message is written once and read by each job: plain SQL on the hot path (raw-table.ts).
const RAW = rawTable(messages);
const BY_ID = `select ${RAW.columns} from "messages" where "id" = ?`;
// Duplicate checks and async MDN matching look up one AS2 Message-ID. Left to itself, SQLite
// satisfies the ORDER BY with a (tenant, direction, created_at) list index and walks the
// tenant's whole history to find it: linear in the messages stored, for every inbound message.
const BY_MESSAGE_ID_FROM = `select ${RAW.columns} from "messages" indexed by "messages_message_id_idx"`;
export const BY_MESSAGE_ID = `${BY_MESSAGE_ID_FROM} where "tenant_id" = ? and "message_id" = ? and "direction" = ? order by "created_at" desc limit 1`;
export const BY_MESSAGE_ID_OF_PARTNER = `${BY_MESSAGE_ID_FROM} where "tenant_id" = ? and "message_id" = ? and "direction" = ? and "partner_id" = ? order by "created_at" desc limit 1`;
// One statement, so concurrent MDNs all land; json_group_array keeps the order given.
const ADD_REJECTED_MDN = `update "messages" set "rejected_mdns" = (
	select json_group_array(json("value") order by "key") from json_each(json_insert("rejected_mdns", '$[#]', json(?)))
	where "key" > json_array_length("rejected_mdns") - ?
) where "id" = ? returning ${RAW.columns}`;
const toMessage = (row: typeof messages.$inferSelect): MessageRecord => row as MessageRecord;
/** A new message waits here for search indexing (search-indexing.ts; migration 0018 says why not a trigger). */
const QUEUE_FOR_SEARCH = `insert into "message_search_pending" ("message_pk") values (?)`;

/** A message and its place in the search queue, in the caller's transaction. */
function insertMessage(db: Db, message: MessageRecord): void {
	db.$client.prepare(RAW.insertSql).run(...RAW.toParams(message));
	db.$client.prepare(QUEUE_FOR_SEARCH).run(message.id);
}

/**
 * A message row read as an array (raw mode): better-sqlite3 builds an object of ~40 keys for
 * a row read as an object, about 3 µs of a primary-key read's 8 (issue #20).
 */
function readMessage(db: Db, sql: string, ...params: unknown[]): MessageRecord | null {
	const values = db.$client
		.prepare(sql)
		.raw(true)
		.get(...params) as unknown[] | undefined;
	return values ? toMessage(RAW.fromArray(values)) : null;
}

/**
 * An update of one message, then its row read back: in SQLite, RETURNING runs as a trigger
 * writing an ephemeral table, and costs more than the read (an UPDATE moving the status with
 * RETURNING of every column 18 µs, without it 5, the read 8). Both run in one transaction
 * (connection.ts), so the row read is the one written.
 */
/** A message by its primary key, in the caller's transaction (also the message a claimed send job names, jobs.ts). */
export const readMessageById = (db: Db, id: string): MessageRecord | null => readMessage(db, BY_ID, id);

function updateMessage(db: Db, update: string, params: unknown[], id: string): MessageRecord | null {
	if (db.$client.prepare(update).run(...params).changes === 0) return null;
	return readMessageById(db, id);
}

/**
 * The messages of `exec`; `one` runs the reads of one statement (the root store's needs no
 * BEGIN … COMMIT for them: connection.ts, `runStatement`).
 */
export function createMessageStore(exec: Exec, one: Exec = exec): MessageStore {
	return {
		create: (message) => exec((db) => insertMessage(db, message)),
		createNew: (message) =>
			exec((db) => {
				const id = formatId("msg_", (db.$client.prepare(NEXT_VALUE).get("msg_") as { value: number }).value);
				insertMessage(db, { ...message, id });
				return id;
			}),
		get: (tenantId, id) =>
			exec((db) => {
				const row = db
					.select()
					.from(messages)
					.where(and(eq(messages.id, id), eq(messages.tenantId, tenantId)))
					.get();
				return row ? toMessage(row) : null;
			}),
		getById: (id) => one((db) => readMessageById(db, id)),
		findByMessageId: (tenantId, messageId, filter) =>
			one((db) =>
				filter.partnerId
					? readMessage(db, BY_MESSAGE_ID_OF_PARTNER, tenantId, messageId, filter.direction, filter.partnerId)
					: readMessage(db, BY_MESSAGE_ID, tenantId, messageId, filter.direction),
			),
		list: (tenantId, filter, page) => exec((db) => listMessages(db, tenantId, filter, page)),
		transition: (id, from, patch) =>
			exec((db) => {
				const set = RAW.setClause(patch);
				const statuses = from.map(() => "?").join(", ");
				const sql = `update "messages" set ${set.sql} where "id" = ? and "status" in (${statuses})`;
				return updateMessage(db, sql, [...set.params, id, ...from], id);
			}),
		update: (id, patch) =>
			exec((db) => {
				const set = RAW.setClause(patch);
				return updateMessage(db, `update "messages" set ${set.sql} where "id" = ?`, [...set.params, id], id);
			}),
		addRejectedMdn: (id, entry, keep) =>
			exec((db) => {
				const row = db.$client.prepare(ADD_REJECTED_MDN).get(JSON.stringify(entry), keep, id) as
					| Record<string, unknown>
					| undefined;
				return row ? toMessage(RAW.fromRow(row)) : null;
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
