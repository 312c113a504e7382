import { type EventRecord, type EventStore, formatId } from "@as2kit/core/store";
import type Database from "better-sqlite3";
import { and, asc, eq, gt, type SQL } from "drizzle-orm";
import type { ActiveEndpointAnswers } from "../active-endpoint-answers.ts";
import type { Exec } from "../connection.ts";
import { rawTable } from "../raw-table.ts";
import { events, jobs } from "../schema.ts";
import { EVENT_SEQUENCE, missingSequence } from "./event-seq.ts";

// Every change appends events: plain SQL on the hot path (raw-table.ts).
const RAW = rawTable(events);
const RAW_JOBS = rawTable(jobs);

const toEvent = ({ seq: _seq, subjectId: _subject, ...row }: typeof events.$inferSelect): EventRecord =>
	row as EventRecord;
/** What the event is about: the resource its data names (the port's `subjectId`). */
const withSubject = (event: EventRecord) => ({
	...event,
	subjectId: typeof event.data.id === "string" ? event.data.id : null,
});

/**
 * An event under a new id made of its own seq, in one statement: the row takes the next seq
 * (event-seq.ts) and `evt_` + that seq, formatted as formatId does. The next seq is a scalar
 * subquery of the VALUES, not an INSERT … SELECT: that form is a multi-row write, for which
 * SQLite opens a statement journal copying every page the insert changes (2–3 µs per event).
 * Without the sequence's row the id is null and the insert fails (events.id is NOT NULL).
 */
const SEQ_COLUMN = RAW.columns.split(", ").indexOf('"seq"');
const ID_COLUMN = RAW.columns.split(", ").indexOf('"id"');
const APPEND_NEW = `insert into "events" (${RAW.columns}) values (${RAW.columns
	.split(", ")
	.map((_, i) =>
		i === SEQ_COLUMN
			? `(select "seq" + 1 from ${EVENT_SEQUENCE})`
			: i === ID_COLUMN
				? `(select printf('evt_%06d', "seq" + 1) from ${EVENT_SEQUENCE})`
				: "?",
	)
	.join(", ")})`;
const HAS_SEQUENCE = `select 1 from ${EVENT_SEQUENCE}`;

function appendNew(client: Database.Database, event: Omit<EventRecord, "id">): string {
	const params = RAW.toParams(withSubject({ ...event, id: "" })).filter((_, i) => i !== SEQ_COLUMN && i !== ID_COLUMN);
	try {
		return formatId("evt_", Number(client.prepare(APPEND_NEW).run(...params).lastInsertRowid));
	} catch (error) {
		if (client.prepare(HAS_SEQUENCE).get() === undefined) missingSequence();
		throw error;
	}
}

/**
 * The fan-out job's insert, only for an account with an active webhook endpoint: a read first,
 * because most accounts have none, and an INSERT … SELECT inserting nothing still costs twice
 * the read (3.3–4.1 against 1.5–1.8 µs per event). Both run in the event's transaction. In a
 * transaction's body the read is made once an account (`answers`, active-endpoint-answers.ts).
 */
const HAS_ACTIVE_ENDPOINT = `select 1 from "webhook_endpoints" where "account_id" = ? and "active" = 1 limit 1`;
const FAN_OUT = RAW_JOBS.insertSql;

function hasActiveEndpoint(
	client: Database.Database,
	accountId: string,
	answers: ActiveEndpointAnswers | null,
): boolean {
	const known = answers?.get(accountId);
	if (known !== undefined) return known;
	const has = client.prepare(HAS_ACTIVE_ENDPOINT).get(accountId) !== undefined;
	answers?.set(accountId, has);
	return has;
}

/** `answers`: the transaction's store's endpoint answers; null for the root store (a call, a transaction). */
export function createEventStore(exec: Exec, answers: ActiveEndpointAnswers | null): EventStore {
	return {
		append: (event) => exec((db) => void db.$client.prepare(RAW.insertSql).run(...RAW.toParams(withSubject(event)))),
		appendNew: (event) => exec((db) => appendNew(db.$client, event)),
		appendNewWithFanOut: (event, fanOut) =>
			exec((db) => {
				const id = appendNew(db.$client, event);
				if (!hasActiveEndpoint(db.$client, event.accountId, answers)) return { id, fanOut: false };
				const job = { kind: fanOut.kind, payload: { eventId: id }, priority: 0, runAt: fanOut.runAt, attempts: 0 };
				db.$client.prepare(FAN_OUT).run(...RAW_JOBS.toParams({ ...job, createdAt: event.createdAt }));
				return { id, fanOut: true };
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
