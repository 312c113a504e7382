import type {
	EpcisEventFilter,
	EpcisQueryOptions,
	EpcisStoredEvent,
	EpcisStringMatch,
	EpcisTimeRange,
	Json,
	Page,
} from "@as2kit/core/store";
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../connection.ts";

/** A driver whose probe finds fewer rows than this is used; else SQLite's own plan. */
const PROBE_CAP = 5000;

type ValueCondition = NonNullable<EpcisEventFilter["values"]>[number];

/** One way to reach the candidate events: index seeks that yield their row ids. */
interface Driver {
	/** `SELECT <row id> …` (a UNION ALL of seeks), for a capped count and as the rowid list. */
	rowids: SQL;
	/** The value condition this driver is: the main query need not test it again. */
	value?: ValueCondition;
}

/**
 * SimpleEventQuery on SQLite. Without statistics, SQLite prefers an index that yields the
 * ORDER BY and so scans a whole time range to find one EPC, and it seeks an OR of prefix
 * ranges only by its leading columns. Each query therefore probes every index a condition
 * could use, as plain seeks (one per equality list or prefix range, UNION ALL), counting at
 * most PROBE_CAP rows (index-only, a few ms at most). When one finds few rows, the events
 * are reached through its row ids and sorted; otherwise the ordered index scan with LIMIT is
 * the better plan and SQLite's choice stands. PostgreSQL's planner has statistics and needs
 * none of this.
 */
export function queryEvents(
	db: Db,
	tenantId: string,
	filter: EpcisEventFilter,
	options: EpcisQueryOptions,
): Page<EpcisStoredEvent> {
	const driver = chooseDriver(db, tenantId, filter);
	const where = sql.join(
		[...(driver ? [sql`e.id IN (${driver.rowids})`] : []), ...conditions(tenantId, filter, driver?.value)],
		sql` AND `,
	);
	const from = sql.raw(driver ? "epcis_events e NOT INDEXED" : "epcis_events e");
	const cap = options.limit;
	const countSql =
		cap === undefined
			? sql`SELECT count(*) AS n FROM ${from} WHERE ${where}`
			: sql`SELECT count(*) AS n FROM (SELECT 1 FROM ${from} WHERE ${where} LIMIT ${cap})`;
	const total = db.get<{ n: number }>(countSql)?.n ?? 0;
	const offset = (options.page.page - 1) * options.page.perPage;
	const size = Math.min(options.page.perPage, total - offset);
	if (size <= 0) return { items: [], total };
	const column = sql.raw(options.orderBy === "recordTime" ? "e.record_time" : "e.event_time");
	const direction = sql.raw(options.direction === "asc" ? "ASC" : "DESC");
	const rows = db.all<{ source_message_id: string; event_index: number; record_time: number; event: string }>(
		sql`SELECT e.source_message_id, e.event_index, e.record_time, e.event FROM ${from} WHERE ${where}
		ORDER BY ${column} ${direction}, e.id ${direction} LIMIT ${size} OFFSET ${offset}`,
	);
	return {
		items: rows.map((row) => ({
			sourceMessageId: row.source_message_id,
			eventIndex: row.event_index,
			recordTime: new Date(row.record_time),
			event: JSON.parse(row.event) as { [key: string]: Json },
		})),
		total,
	};
}

function chooseDriver(db: Db, tenantId: string, filter: EpcisEventFilter): Driver | null {
	let best: { driver: Driver; rows: number } | null = null;
	for (const driver of drivers(tenantId, filter)) {
		const rows = db.get<{ n: number }>(sql`SELECT count(*) AS n FROM (${driver.rowids} LIMIT ${PROBE_CAP})`)?.n ?? 0;
		if (rows < PROBE_CAP && (!best || rows < best.rows)) best = { driver, rows };
		if (rows === 0) break;
	}
	return best?.driver ?? null;
}

function drivers(tenantId: string, filter: EpcisEventFilter): Driver[] {
	const out: Driver[] = [];
	// The time range rides along on the (tenant, field, event_time) indexes.
	const time = timeRange(sql.raw("e.event_time"), filter.eventTime);
	const seek = (index: string, parts: SQL[], extra: SQL[] = []) => {
		if (parts.length === 0) return;
		const from = sql.raw(`epcis_events e INDEXED BY ${index}`);
		const selects = parts.map(
			(part) =>
				sql`SELECT e.id FROM ${from} WHERE ${sql.join([sql`e.tenant_id = ${tenantId}`, part, ...extra], sql` AND `)}`,
		);
		out.push({ rowids: sql.join(selects, sql` UNION ALL `) });
	};
	for (const value of filter.values ?? []) {
		if (value.kinds.length === 0) continue;
		const typed = value.type === undefined ? [] : [sql`v.type = ${value.type}`];
		const selects = matchParts(sql.raw("v.value"), value.match).map(
			(part) =>
				sql`SELECT v.event_row FROM epcis_event_values v WHERE ${sql.join(
					[sql`v.tenant_id = ${tenantId}`, sql`v.kind IN ${value.kinds}`, part, ...typed],
					sql` AND `,
				)}`,
		);
		if (selects.length > 0) out.push({ rowids: sql.join(selects, sql` UNION ALL `), value });
	}
	const list = (column: string, values: readonly string[] | undefined) =>
		values?.length ? [sql`${sql.raw(column)} IN ${values}`] : [];
	seek("epcis_events_event_id_idx", list("e.event_id", filter.eventIds));
	seek("epcis_events_transformation_idx", list("e.transformation_id", filter.transformationIds));
	seek("epcis_events_biz_step_idx", list("e.biz_step", filter.bizSteps), time);
	seek("epcis_events_disposition_idx", list("e.disposition", filter.dispositions), time);
	for (const match of filter.readPoint ?? [])
		seek("epcis_events_read_point_idx", matchParts(sql.raw("e.read_point"), match), time);
	for (const match of filter.bizLocation ?? [])
		seek("epcis_events_biz_location_idx", matchParts(sql.raw("e.biz_location"), match), time);
	if (time.length) seek("epcis_events_time_idx", [sql.join(time, sql` AND `)]);
	const record = timeRange(sql.raw("e.record_time"), filter.recordTime);
	if (record.length) seek("epcis_events_record_time_idx", [sql.join(record, sql` AND `)]);
	return out;
}

/** Every condition of the filter but the driving value condition; the other value conditions per event. */
function conditions(tenantId: string, filter: EpcisEventFilter, driving: ValueCondition | undefined): SQL[] {
	const c: SQL[] = [sql`e.tenant_id = ${tenantId}`];
	const anyOf = (column: string, values: readonly string[] | undefined) => {
		if (values) c.push(values.length === 0 ? sql`0` : sql`${sql.raw(column)} IN ${values}`);
	};
	anyOf("e.type", filter.types);
	anyOf("e.action", filter.actions);
	anyOf("e.biz_step", filter.bizSteps);
	anyOf("e.disposition", filter.dispositions);
	anyOf("e.transformation_id", filter.transformationIds);
	anyOf("e.event_id", filter.eventIds);
	c.push(...timeRange(sql.raw("e.event_time"), filter.eventTime));
	c.push(...timeRange(sql.raw("e.record_time"), filter.recordTime));
	for (const match of filter.readPoint ?? []) c.push(stringMatch(sql.raw("e.read_point"), match));
	for (const match of filter.bizLocation ?? []) c.push(stringMatch(sql.raw("e.biz_location"), match));
	for (const value of filter.values ?? []) {
		if (value === driving) continue;
		c.push(
			// The event's own rows (already its tenant's): index-only on (event_row, kind, value, type).
			sql`EXISTS (SELECT 1 FROM epcis_event_values v INDEXED BY epcis_event_values_event_idx WHERE v.event_row = e.id AND ${valueCondition(null, value)})`,
		);
	}
	return c;
}

function valueCondition(tenantId: string | null, value: ValueCondition): SQL {
	const c: SQL[] = tenantId === null ? [] : [sql`v.tenant_id = ${tenantId}`];
	c.push(value.kinds.length === 0 ? sql`0` : sql`v.kind IN ${value.kinds}`);
	c.push(stringMatch(sql.raw("v.value"), value.match));
	if (value.type !== undefined) c.push(sql`v.type = ${value.type}`);
	return sql.join(c, sql` AND `);
}

function timeRange(column: SQL, bounds: EpcisTimeRange | undefined): SQL[] {
	const c: SQL[] = [];
	if (bounds?.gte) c.push(sql`${column} >= ${bounds.gte.getTime()}`);
	if (bounds?.lt) c.push(sql`${column} < ${bounds.lt.getTime()}`);
	if (bounds?.lte) c.push(sql`${column} <= ${bounds.lte.getTime()}`);
	return c;
}

/** Equality, or a prefix as a range (BINARY collation compares UTF-8 bytes), so indexes serve both. */
function stringMatch(column: SQL, match: EpcisStringMatch): SQL {
	const parts = matchParts(column, match);
	return parts.length === 0 ? sql`0` : sql`(${sql.join(parts, sql` OR `)})`;
}

/** The alternatives of a match, each one index seek: the equality list, then one range per prefix. */
function matchParts(column: SQL, match: EpcisStringMatch): SQL[] {
	const parts: SQL[] = [];
	if (match.equals?.length) parts.push(sql`${column} IN ${match.equals}`);
	for (const prefix of match.prefixes ?? []) {
		const upper = prefixUpperBound(prefix);
		parts.push(upper === null ? sql`${column} >= ${prefix}` : sql`${column} >= ${prefix} AND ${column} < ${upper}`);
	}
	return parts;
}

/** The least string above every string that starts with `prefix`; null when there is none. */
export function prefixUpperBound(prefix: string): string | null {
	for (let i = prefix.length - 1; i >= 0; i--) {
		const code = prefix.charCodeAt(i);
		if (code < 0xd7ff) return prefix.slice(0, i) + String.fromCharCode(code + 1);
	}
	return null;
}
