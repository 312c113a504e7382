import type { EpcisDocumentRecord, EpcisEventRecord, EpcisStore } from "@as2kit/core/store";
import { and, eq, max, sql } from "drizzle-orm";
import type { Db, Runner } from "../connection.ts";
import { epcisDocuments, epcisEvents, epcisEventValues } from "../schema.ts";
import { queryEvents } from "./epcis-query.ts";

/** Rows per INSERT: 14 parameters an event, 5 a value, well under PostgreSQL's 65535. */
const EVENT_CHUNK = 500;
const VALUE_CHUNK = 1000;

const keyOf = (tenantId: string, sourceMessageId: string, eventIndex: number) =>
	JSON.stringify([tenantId, sourceMessageId, eventIndex]);

function chunks<T>(items: readonly T[], size: number): T[][] {
	const out: T[][] = [];
	for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
	return out;
}

/**
 * Inserts one chunk of events and then the values of those it inserted. An event already
 * stored (a re-run after a crash) conflicts on (tenant, message, index) and returns no row,
 * so its values are not written twice.
 */
async function insertChunk(db: Db, events: EpcisEventRecord[]): Promise<number> {
	const inserted = await db
		.insert(epcisEvents)
		.values(events.map(({ values: _values, ...event }) => event))
		.onConflictDoNothing({ target: [epcisEvents.tenantId, epcisEvents.sourceMessageId, epcisEvents.eventIndex] })
		.returning({
			id: epcisEvents.id,
			tenantId: epcisEvents.tenantId,
			sourceMessageId: epcisEvents.sourceMessageId,
			eventIndex: epcisEvents.eventIndex,
		});
	const rowOf = new Map(inserted.map((row) => [keyOf(row.tenantId, row.sourceMessageId, row.eventIndex), row.id]));
	const values = events.flatMap((event) => {
		const key = keyOf(event.tenantId, event.sourceMessageId, event.eventIndex);
		const eventRow = rowOf.get(key);
		// A key given twice in one call is inserted once, with the values of its first event.
		rowOf.delete(key);
		return eventRow === undefined ? [] : event.values.map((v) => ({ eventRow, tenantId: event.tenantId, ...v }));
	});
	for (const chunk of chunks(values, VALUE_CHUNK)) await db.insert(epcisEventValues).values(chunk);
	return inserted.length;
}

export function createEpcisStore(runner: Runner): EpcisStore {
	return {
		insertEvents: (events) =>
			runner.atomic(async (db) => {
				let inserted = 0;
				for (const chunk of chunks(events, EVENT_CHUNK)) inserted += await insertChunk(db, chunk);
				return inserted;
			}),
		lastEventIndex: (tenantId, sourceMessageId) =>
			runner
				.run((db) =>
					db
						.select({ last: max(epcisEvents.eventIndex) })
						.from(epcisEvents)
						.where(and(eq(epcisEvents.tenantId, tenantId), eq(epcisEvents.sourceMessageId, sourceMessageId))),
				)
				.then(([row]) => row?.last ?? -1),
		// One statement: the values deleted are exactly those of the events deleted, in one snapshot.
		deleteEvents: (tenantId, sourceMessageId) =>
			runner
				.run((db) =>
					db.execute<{ n: string }>(sql`
						with gone as (
							delete from ${epcisEvents}
							where ${epcisEvents.tenantId} = ${tenantId} and ${epcisEvents.sourceMessageId} = ${sourceMessageId}
							returning ${epcisEvents.id}
						), gone_values as (
							delete from ${epcisEventValues} where ${epcisEventValues.eventRow} in (select id from gone)
						)
						select count(*) as n from gone`),
				)
				.then((result) => Number(result.rows[0]?.n ?? 0)),
		queryEvents: (tenantId, filter, options) => runner.run((db) => queryEvents(db, tenantId, filter, options)),
		putDocument: async (document) => {
			await runner.run((db) =>
				db
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
					}),
			);
		},
		getDocument: (tenantId, messageId) =>
			runner
				.run((db) =>
					db
						.select()
						.from(epcisDocuments)
						.where(and(eq(epcisDocuments.tenantId, tenantId), eq(epcisDocuments.messageId, messageId))),
				)
				.then(([row]) => (row ? (row as EpcisDocumentRecord) : null)),
	};
}
