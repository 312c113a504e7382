import type { EpcisDocumentRecord, EpcisStore } from "@as2kit/core/store";
import { and, eq, sql } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { epcisDocuments } from "../schema.ts";
import { queryEvents } from "./epcis-query.ts";

const INSERT_EVENT = `INSERT INTO epcis_events (tenant_id, source_message_id, event_index, type, event_time, record_time, action, biz_step, disposition, read_point, biz_location, transformation_id, event_id, event)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`;
const INSERT_VALUE = "INSERT INTO epcis_event_values (event_row, tenant_id, kind, type, value) VALUES (?, ?, ?, ?, ?)";

export function createEpcisStore(exec: Exec): EpcisStore {
	return {
		insertEvents: (events) =>
			exec((db) => {
				const client = db.$client;
				const insertEvent = client.prepare(INSERT_EVENT);
				const insertValue = client.prepare(INSERT_VALUE);
				let inserted = 0;
				// One statement per row through prepared statements: drizzle's builder costs more than
				// the insert itself at bulk sizes. Atomic per call (a savepoint inside a transaction).
				client.transaction(() => {
					for (const e of events) {
						const result = insertEvent.run(
							e.tenantId,
							e.sourceMessageId,
							e.eventIndex,
							e.type,
							e.eventTime.getTime(),
							e.recordTime.getTime(),
							e.action,
							e.bizStep,
							e.disposition,
							e.readPoint,
							e.bizLocation,
							e.transformationId,
							e.eventId,
							JSON.stringify(e.event),
						);
						if (result.changes === 0) continue;
						inserted++;
						for (const v of e.values) insertValue.run(result.lastInsertRowid, e.tenantId, v.kind, v.type, v.value);
					}
				})();
				return inserted;
			}),
		lastEventIndex: (tenantId, sourceMessageId) =>
			exec(
				(db) =>
					db.get<{ last: number | null }>(
						sql`SELECT max(event_index) AS last FROM epcis_events WHERE tenant_id = ${tenantId} AND source_message_id = ${sourceMessageId}`,
					)?.last ?? -1,
			),
		deleteEvents: (tenantId, sourceMessageId) =>
			exec((db) =>
				db.$client.transaction(() => {
					const rows = sql`SELECT id FROM epcis_events WHERE tenant_id = ${tenantId} AND source_message_id = ${sourceMessageId}`;
					db.run(sql`DELETE FROM epcis_event_values WHERE event_row IN (${rows})`);
					return db.run(
						sql`DELETE FROM epcis_events WHERE tenant_id = ${tenantId} AND source_message_id = ${sourceMessageId}`,
					).changes;
				})(),
			),
		queryEvents: (tenantId, filter, options) => exec((db) => queryEvents(db, tenantId, filter, options)),
		putDocument: (document) =>
			exec(
				(db) =>
					void db
						.insert(epcisDocuments)
						.values(document)
						.onConflictDoUpdate({
							target: [epcisDocuments.tenantId, epcisDocuments.messageId],
							set: {
								status: document.status,
								version: document.version,
								eventCount: document.eventCount,
								skippedEvents: document.skippedEvents,
								errorCode: document.errorCode,
								errorMessage: document.errorMessage,
								updatedAt: document.updatedAt,
							},
						})
						.run(),
			),
		getDocument: (tenantId, messageId) =>
			exec((db) => {
				const row = db
					.select()
					.from(epcisDocuments)
					.where(and(eq(epcisDocuments.tenantId, tenantId), eq(epcisDocuments.messageId, messageId)))
					.get();
				return row ? (row as EpcisDocumentRecord) : null;
			}),
	};
}
