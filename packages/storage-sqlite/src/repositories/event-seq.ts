import type Database from "better-sqlite3";

/**
 * Where the next event's seq comes from: events.seq is AUTOINCREMENT, so sqlite_sequence holds
 * the largest seq ever taken (none is reused after retention deletes events), and migration
 * 0017 writes its row. An event's `evt_` id is its seq, so ids follow the order events are
 * listed in. The insert reads this row, not the events table: an INSERT … SELECT reading its own
 * table first copies the rows into a temporary table (measured: +4–5 µs per event).
 */
export const EVENT_SEQUENCE = `"sqlite_sequence" where "name" = 'events'`;
const RESERVE = `update "sqlite_sequence" set "seq" = "seq" + 1 where "name" = 'events' returning "seq"`;

/**
 * `ids.next("evt_")`: reserves the next seq without an event, so an id taken this way and one
 * given by `appendNew` never meet (the port: both come from one sequence).
 */
export function reserveEventSeq(client: Database.Database): number {
	const next = client.prepare(RESERVE).pluck().get();
	return next === undefined ? missingSequence() : (next as number);
}

export function missingSequence(): never {
	throw new Error("storage-sqlite: sqlite_sequence has no row for events (migration 0017 writes it)");
}
