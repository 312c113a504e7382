import type { MessageAttemptRecord, MessageAttemptStore } from "@as2kit/core/store";
import { and, asc, eq, lte } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { rawTable } from "../raw-table.ts";
import { messageAttempts } from "../schema.ts";

// Every transmission records its attempt and completes it: plain SQL on the hot path (raw-table.ts).
const RAW = rawTable(messageAttempts);
const toAttempt = (row: typeof messageAttempts.$inferSelect): MessageAttemptRecord => row as MessageAttemptRecord;

export function createMessageAttemptStore(exec: Exec): MessageAttemptStore {
	return {
		create: (attempt) => exec((db) => void db.$client.prepare(RAW.insertSql).run(...RAW.toParams(attempt))),
		list: (tenantId, messageId) =>
			exec((db) =>
				db
					.select()
					.from(messageAttempts)
					.where(and(eq(messageAttempts.messageId, messageId), eq(messageAttempts.tenantId, tenantId)))
					.orderBy(asc(messageAttempts.number))
					.all()
					.map(toAttempt),
			),
		get: (tenantId, messageId, number) =>
			exec((db) =>
				db
					.select()
					.from(messageAttempts)
					.where(
						and(
							eq(messageAttempts.messageId, messageId),
							eq(messageAttempts.number, number),
							eq(messageAttempts.tenantId, tenantId),
						),
					)
					.get(),
			).then((row) => (row ? toAttempt(row) : null)),
		// Each transmission completes its attempt with the response it captured: plain SQL too.
		update: (messageId, number, patch) =>
			exec((db) => {
				const set = RAW.setClause(patch);
				const sql = `update "message_attempts" set ${set.sql} where "message_id" = ? and "number" = ? returning ${RAW.columns}`;
				const row = db.$client.prepare(sql).get(...set.params, messageId, number) as
					| Record<string, unknown>
					| undefined;
				return row ? toAttempt(RAW.fromRow(row)) : null;
			}),
		listWireExpired: (now, limit) =>
			exec((db) =>
				db
					.select()
					.from(messageAttempts)
					.where(lte(messageAttempts.wireExpiresAt, now))
					.orderBy(asc(messageAttempts.wireExpiresAt))
					.limit(limit)
					.all()
					.map(toAttempt),
			),
	};
}
