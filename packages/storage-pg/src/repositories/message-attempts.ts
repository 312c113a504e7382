import type { MessageAttemptRecord, MessageAttemptStore } from "@as2kit/core/store";
import { and, asc, eq, lte } from "drizzle-orm";
import type { Runner } from "../connection.ts";
import { messageAttempts } from "../schema.ts";
import { unread } from "../undescribed-query.ts";
import { rawTable } from "./pg-raw-table.ts";

// Every transmission records its attempt and completes it: prepared statements (pg-raw-table.ts).
const RAW = rawTable(messageAttempts);
const CREATE = RAW.insertSql();
const toAttempt = (row: typeof messageAttempts.$inferSelect): MessageAttemptRecord => row as MessageAttemptRecord;

export function createMessageAttemptStore(runner: Runner): MessageAttemptStore {
	return {
		create: async (attempt) => {
			await runner.query(CREATE, RAW.toParams(attempt), unread);
		},
		list: (tenantId, messageId) =>
			runner
				.run((db) =>
					db
						.select()
						.from(messageAttempts)
						.where(and(eq(messageAttempts.messageId, messageId), eq(messageAttempts.tenantId, tenantId)))
						.orderBy(asc(messageAttempts.number)),
				)
				.then((rows) => rows.map(toAttempt)),
		get: (tenantId, messageId, number) =>
			runner
				.run((db) =>
					db
						.select()
						.from(messageAttempts)
						.where(
							and(
								eq(messageAttempts.messageId, messageId),
								eq(messageAttempts.number, number),
								eq(messageAttempts.tenantId, tenantId),
							),
						),
				)
				.then(([row]) => (row ? toAttempt(row) : null)),
		// Each transmission completes its attempt with the response it captured: a prepared statement too.
		update: async (messageId, number, patch) => {
			const set = RAW.setClause(patch, 3);
			const [row] = await runner.query<Record<string, unknown>>(
				`update "message_attempts" set ${set.sql} where "message_id" = $1 and "number" = $2 returning ${RAW.columns}`,
				[messageId, number, ...set.params],
			);
			return row ? toAttempt(RAW.fromRow(row)) : null;
		},
		listWireExpired: (now, limit) =>
			runner
				.run((db) =>
					db
						.select()
						.from(messageAttempts)
						.where(lte(messageAttempts.wireExpiresAt, now))
						.orderBy(asc(messageAttempts.wireExpiresAt))
						.limit(limit),
				)
				.then((rows) => rows.map(toAttempt)),
	};
}
