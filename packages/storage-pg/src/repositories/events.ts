import type { EventRecord, EventStore } from "@as2kit/core/store";
import { and, asc, eq, gt, type SQL, sql } from "drizzle-orm";
import type { Runner } from "../connection.ts";
import { events } from "../schema.ts";
import { rawTable } from "./pg-raw-table.ts";

const RAW_EVENTS = rawTable(events);
const APPEND = RAW_EVENTS.insertSql(["seq"]);
/**
 * The insert with its id taken from the `evt_` sequence in the same statement (one round trip
 * less per event), formatted as formatId does: at least six digits. The sequence comes last.
 */
const WITHOUT_ID = ["seq", "id"];
const SEQUENCE_PARAM = RAW_EVENTS.toParams({}, WITHOUT_ID).length + 1;
const APPEND_NEW = RAW_EVENTS.insertSql(WITHOUT_ID)
	.replace('insert into "events" (', 'insert into "events" ("id", ')
	.replace(
		"values (",
		`values ((select 'evt_' || case when v < 1000000 then lpad(v::text, 6, '0') else v::text end from nextval($${SEQUENCE_PARAM}::regclass) as v), `,
	)
	.concat(' returning "id"');

const toEvent = ({ seq: _seq, subjectId: _subject, ...row }: typeof events.$inferSelect): EventRecord =>
	row as EventRecord;
/** What the event is about: the resource its data names (the port's `subjectId`). */
const withSubject = (event: EventRecord) => ({
	...event,
	subjectId: typeof event.data.id === "string" ? event.data.id : null,
});

export function createEventStore(runner: Runner, ensureSequence: (prefix: string) => Promise<string>): EventStore {
	return {
		// Every state change appends events: a prepared statement on the hot path (pg-raw-table.ts).
		append: async (event) => {
			await runner.query(APPEND, RAW_EVENTS.toParams(withSubject(event), ["seq"]));
		},
		appendNew: async (event) => {
			const sequence = await ensureSequence("evt_");
			const params = RAW_EVENTS.toParams(withSubject({ ...event, id: "" }), WITHOUT_ID);
			const [row] = await runner.query<{ id: string }>(APPEND_NEW, [...params, sequence]);
			return row!.id;
		},
		get: (id) =>
			runner
				.run((db) => db.select().from(events).where(eq(events.id, id)))
				.then(([row]) => (row ? toEvent(row) : null)),
		list: (filter) => {
			const conditions: SQL[] = [eq(events.accountId, filter.accountId)];
			if (filter.tenantId) conditions.push(eq(events.tenantId, filter.tenantId));
			if (filter.kind) conditions.push(eq(events.kind, filter.kind));
			if (filter.subjectId) conditions.push(eq(events.subjectId, filter.subjectId));
			if (filter.afterId) {
				// An unknown afterId filters nothing, as in storage-sqlite; seq starts at 1.
				const after = sql`coalesce((select ${events.seq} from ${events} where ${events.id} = ${filter.afterId}), 0)`;
				conditions.push(gt(events.seq, after));
			}
			return runner
				.run((db) =>
					db
						.select()
						.from(events)
						.where(and(...conditions))
						.orderBy(asc(events.seq))
						.limit(filter.limit ?? 1000),
				)
				.then((rows) => rows.map(toEvent));
		},
	};
}
