import type { MessageRecord, MessageStore, PartnerTraffic } from "@as2kit/core/store";
import { and, asc, type Column, desc, eq, getTableColumns, gt, lt, or, type SQL, sql } from "drizzle-orm";
import type { Db, Runner } from "../connection.ts";
import { messageStates, messages } from "../schema.ts";
import { firstText, type TextRow, unread } from "../undescribed-query.ts";
import { insertWithNewId } from "./insert-with-new-id.ts";
import { listMessages } from "./message-list.ts";
import { movingState, withState } from "./message-states.ts";
import { rawTable } from "./pg-raw-table.ts";

// Every message is created, read and moved through its states several times: prepared
// statements on the hot path (pg-raw-table.ts).
const RAW_MESSAGES = rawTable(messages);
const CREATE = withState(RAW_MESSAGES.insertSql());
const CREATE_NEW_ID = insertWithNewId(RAW_MESSAGES, "msg_");
const CREATE_NEW = withState(CREATE_NEW_ID.sql.replace(/ returning "id"$/, ""), ' returning "id"');
const BY_ID = `select ${RAW_MESSAGES.columns} from "messages" where "id" = $1`;
const BY_TENANT_AND_ID = `${BY_ID} and "tenant_id" = $2`;
// One UPDATE, so concurrent MDNs all land: the row lock orders them. `json`, not `jsonb`,
// keeps each entry's keys in the order written (schema.ts).
const ADD_REJECTED_MDN = `update "messages" set "rejected_mdns" = (
	select coalesce(json_agg(entry order by n), '[]'::json) from (
		select entry, n from json_array_elements("rejected_mdns") with ordinality as kept(entry, n)
		union all select $2::json, json_array_length("rejected_mdns") + 1
	) appended where n > json_array_length("rejected_mdns") + 1 - $3
) where "id" = $1 returning ${RAW_MESSAGES.columns}`;
/** A whole-row statement's message: read without Describe (undescribed-query.ts), as text. */
const wholeRow = (row: TextRow) => toMessage(RAW_MESSAGES.fromText(row));
const first = (rows: MessageRecord[]) => rows[0] ?? null;

const toMessage = (row: typeof messages.$inferSelect): MessageRecord => row as MessageRecord;

const outbound = eq(messages.direction, "outbound");
const inbound = eq(messages.direction, "inbound");
const failed = eq(messages.status, "failed");
/** Delivered, or sent without an MDN requested (PartnerTraffic.outboundSucceeded). */
const succeeded = or(
	eq(messages.status, "delivered"),
	and(eq(messages.status, "sent"), eq(messages.mdnStatus, "none")),
);
/** The UTC day of creation, as SQLite's strftime('%Y-%m-%d') gives it. */
const day = sql<string>`to_char(${messages.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;

const countWhere = (condition: SQL | undefined) => sql<number>`count(*) filter (where ${condition})`.mapWith(Number);
const averageSeconds = (from: Column, to: Column, condition: SQL) =>
	sql<number | null>`avg(extract(epoch from ${to} - ${from})) filter (where ${condition})`.mapWith(Number);

async function partnerTraffic(db: Db, tenantId: string, partnerId: string, since: Date): Promise<PartnerTraffic> {
	const scope = and(eq(messages.tenantId, tenantId), eq(messages.partnerId, partnerId), gt(messages.createdAt, since));
	const [totals] = await db
		.select({
			sent: countWhere(outbound),
			received: countWhere(inbound),
			outboundSucceeded: countWhere(and(outbound, succeeded)),
			outboundFailed: countWhere(and(outbound, failed)),
			inboundFailed: countWhere(and(inbound, failed)),
			avgOutboundSeconds: averageSeconds(messages.createdAt, messages.deliveredAt, outbound),
			avgInboundSeconds: averageSeconds(messages.createdAt, messages.updatedAt, inbound),
			lastMessageAt: sql<Date | null>`max(${messages.createdAt})`.mapWith(messages.createdAt),
		})
		.from(messages)
		.where(scope);
	const days = await db
		.select({ date: day, sent: countWhere(outbound), received: countWhere(inbound), failures: countWhere(failed) })
		.from(messages)
		.where(scope)
		.groupBy(day)
		.orderBy(day);
	return { ...totals!, days };
}

export function createMessageStore(runner: Runner, ensureSequence: (prefix: string) => Promise<string>): MessageStore {
	return {
		create: async (message) => {
			await runner.query(CREATE, RAW_MESSAGES.toParams(message), unread);
		},
		createNew: async (message) => {
			const [id] = await runner.query(
				CREATE_NEW,
				CREATE_NEW_ID.params(message, await ensureSequence("msg_")),
				firstText,
			);
			return id!;
		},
		get: (tenantId, id) => runner.query(BY_TENANT_AND_ID, [id, tenantId], wholeRow).then(first),
		getById: (id) => runner.query(BY_ID, [id], wholeRow).then(first),
		findByMessageId: async (tenantId, messageId, filter) => {
			const [row] = await runner.run((db) =>
				db
					.select()
					.from(messages)
					.where(
						and(
							eq(messages.tenantId, tenantId),
							eq(messages.messageId, messageId),
							eq(messages.direction, filter.direction),
							filter.partnerId ? eq(messages.partnerId, filter.partnerId) : undefined,
						),
					)
					.orderBy(desc(messages.createdAt))
					.limit(1),
			);
			return row ? toMessage(row) : null;
		},
		list: (tenantId, filter, page) => runner.run((db) => listMessages(db, tenantId, filter, page)),
		transition: (id, from, patch) => {
			// One conditional UPDATE: of workers racing on a message, one finds it still in `from`
			// (the others wait on its row lock, then re-check the status and update nothing).
			const set = RAW_MESSAGES.setClause(patch, 3);
			return runner
				.query(
					movingState(
						`update "messages" set ${set.sql} where "id" = $1 and "status" = any($2::text[]) returning ${RAW_MESSAGES.columns}`,
						patch,
					),
					[id, [...from], ...set.params],
					wholeRow,
				)
				.then(first);
		},
		update: (id, patch) => {
			const set = RAW_MESSAGES.setClause(patch, 2);
			return runner
				.query(
					movingState(`update "messages" set ${set.sql} where "id" = $1 returning ${RAW_MESSAGES.columns}`, patch),
					[id, ...set.params],
					wholeRow,
				)
				.then(first);
		},
		addRejectedMdn: (id, entry, keep) =>
			runner.query(ADD_REJECTED_MDN, [id, JSON.stringify(entry), keep], wholeRow).then(first),
		listMdnOverdue: async (now, limit) => {
			// message_states_mdn_deadline_idx, oldest deadline first; the whole rows by their key.
			const rows = await runner.run((db) =>
				db
					.select(getTableColumns(messages))
					.from(messageStates)
					.innerJoin(messages, eq(messages.id, messageStates.id))
					.where(
						and(
							eq(messageStates.mdnStatus, "pending"),
							eq(messageStates.status, "sent"),
							lt(messageStates.mdnDeadline, now),
						),
					)
					.orderBy(asc(messageStates.mdnDeadline))
					.limit(limit),
			);
			return rows.map(toMessage);
		},
		partnerTraffic: (tenantId, partnerId, since) => runner.run((db) => partnerTraffic(db, tenantId, partnerId, since)),
	};
}
