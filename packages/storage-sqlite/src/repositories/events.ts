import { type EventRecord, type EventStore, formatId } from "@as2kit/core/store";
import { and, asc, eq, gt, type SQL } from "drizzle-orm";
import type { Exec } from "../connection.ts";
import { rawTable } from "../raw-table.ts";
import { events } from "../schema.ts";
import { NEXT_VALUE } from "./ids.ts";

// Every change appends events: plain SQL on the hot path (raw-table.ts).
const RAW = rawTable(events);

const toEvent = ({ seq: _seq, subjectId: _subject, ...row }: typeof events.$inferSelect): EventRecord =>
	row as EventRecord;
/** What the event is about: the resource its data names (the port's `subjectId`). */
const withSubject = (event: EventRecord) => ({
	...event,
	subjectId: typeof event.data.id === "string" ? event.data.id : null,
});

export function createEventStore(exec: Exec): EventStore {
	return {
		append: (event) => exec((db) => void db.$client.prepare(RAW.insertSql).run(...RAW.toParams(withSubject(event)))),
		appendNew: (event) =>
			exec((db) => {
				const id = formatId("evt_", (db.$client.prepare(NEXT_VALUE).get("evt_") as { value: number }).value);
				db.$client.prepare(RAW.insertSql).run(...RAW.toParams(withSubject({ ...event, id })));
				return id;
			}),
		get: (id) =>
			exec((db) => db.select().from(events).where(eq(events.id, id)).get()).then((row) => (row ? toEvent(row) : null)),
		list: (filter) =>
			exec((db) => {
				const conditions: SQL[] = [eq(events.accountId, filter.accountId)];
				if (filter.tenantId) conditions.push(eq(events.tenantId, filter.tenantId));
				if (filter.kind) conditions.push(eq(events.kind, filter.kind));
				if (filter.subjectId) conditions.push(eq(events.subjectId, filter.subjectId));
				if (filter.afterId) {
					const after = db.select({ seq: events.seq }).from(events).where(eq(events.id, filter.afterId)).get();
					if (after) conditions.push(gt(events.seq, after.seq));
				}
				return db
					.select()
					.from(events)
					.where(and(...conditions))
					.orderBy(asc(events.seq))
					.limit(filter.limit ?? 1000)
					.all()
					.map(toEvent);
			}),
	};
}
