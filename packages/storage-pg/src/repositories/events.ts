import type { EventRecord, EventStore } from "@as2kit/core/store";
import { and, asc, eq, gt, type SQL, sql } from "drizzle-orm";
import type { Runner } from "../connection.ts";
import { events, jobs } from "../schema.ts";
import { firstText, unread } from "../undescribed-query.ts";
import { insertWithNewId } from "./insert-with-new-id.ts";
import { rawTable } from "./pg-raw-table.ts";

const RAW_EVENTS = rawTable(events);
const APPEND = RAW_EVENTS.insertSql(["seq"]);
const APPEND_NEW = insertWithNewId(RAW_EVENTS, "evt_", ["seq"]);
/**
 * The insert above and, when a tenant of the account has an active webhook endpoint, the fan-out
 * job: one round trip instead of three (the check, the event, the job). At READ COMMITTED the
 * check sees every endpoint committed before the statement starts, on any instance, as the
 * separate query did. The job's kind and due time come after the sequence.
 */
const APPEND_NEW_WITH_FAN_OUT = `with "event" as (${APPEND_NEW.sql.replace(/ returning "id"$/, ' returning "id", "account_id", "created_at"')}),
	"fan_out" as (insert into "jobs" ("kind", "payload", "priority", "run_at", "attempts", "created_at")
		select $${APPEND_NEW.sequenceParam + 1}::text, json_build_object('eventId', "event"."id"), 0, $${APPEND_NEW.sequenceParam + 2}::timestamptz, 0, "event"."created_at"
		from "event"
		where exists (select 1 from "webhook_endpoints" where "account_id" = "event"."account_id" and "active")
		returning 1)
	select "id", exists (select 1 from "fan_out") as "fan_out" from "event"`;

const toEvent = ({ seq: _seq, subjectId: _subject, ...row }: typeof events.$inferSelect): EventRecord =>
	row as EventRecord;
/** What the event is about: the resource its data names (the port's `subjectId`). */
export const withSubject = (event: EventRecord) => ({
	...event,
	subjectId: typeof event.data.id === "string" ? event.data.id : null,
});

export function createEventStore(runner: Runner, ensureSequence: (prefix: string) => Promise<string>): EventStore {
	return {
		// Every state change appends events: a prepared statement on the hot path (pg-raw-table.ts).
		append: async (event) => {
			await runner.query(APPEND, RAW_EVENTS.toParams(withSubject(event), ["seq"]), unread);
		},
		appendNew: async (event) => {
			const params = APPEND_NEW.params(withSubject({ ...event, id: "" }), await ensureSequence("evt_"));
			const [id] = await runner.query(APPEND_NEW.sql, params, firstText);
			return id!;
		},
		appendNewWithFanOut: async (event, fanOut) => {
			const params = APPEND_NEW.params(withSubject({ ...event, id: "" }), await ensureSequence("evt_"));
			const [row] = await runner.query(
				APPEND_NEW_WITH_FAN_OUT,
				[...params, fanOut.kind, jobs.runAt.mapToDriverValue(fanOut.runAt)],
				// "id", then "fan_out" (a boolean: `t` / `f` as text).
				(columns) => ({ id: columns[0] as string, fanOut: columns[1] === "t" }),
			);
			return row!;
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
