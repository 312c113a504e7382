import type {
	EpcisEventFilter,
	EpcisQueryOptions,
	EpcisStoredEvent,
	EpcisStringMatch,
	EpcisTimeRange,
	Page,
} from "@as2kit/core/store";
import {
	type AnyColumn,
	and,
	asc,
	count,
	desc,
	eq,
	exists,
	gte,
	inArray,
	like,
	lt,
	lte,
	or,
	type SQL,
	sql,
} from "drizzle-orm";
import type { Db } from "../connection.ts";
import { epcisEvents, epcisEventValues } from "../schema.ts";

type ValueCondition = NonNullable<EpcisEventFilter["values"]>[number];

const nothing = sql`false`;

/**
 * SimpleEventQuery on PostgreSQL: plain conditions, and an EXISTS per value condition that
 * names the tenant, so the planner may drive a selective EPC lookup from the values' lookup
 * index (a semi-join) or check each event on the event index, from its statistics.
 *
 * The capped total first, then the page within the first `limit` events in the query's
 * order, as storage-sqlite does.
 */
export async function queryEvents(
	db: Db,
	tenantId: string,
	filter: EpcisEventFilter,
	options: EpcisQueryOptions,
): Promise<Page<EpcisStoredEvent>> {
	const where = and(...conditions(db, tenantId, filter));
	const total = await countMatching(db, where, options.limit);
	const offset = (options.page.page - 1) * options.page.perPage;
	const size = Math.min(options.page.perPage, total - offset);
	if (size <= 0) return { items: [], total };
	const order = options.direction === "asc" ? asc : desc;
	const column = options.orderBy === "recordTime" ? epcisEvents.recordTime : epcisEvents.eventTime;
	const items = await db
		.select({
			sourceMessageId: epcisEvents.sourceMessageId,
			eventIndex: epcisEvents.eventIndex,
			recordTime: epcisEvents.recordTime,
			event: epcisEvents.event,
		})
		.from(epcisEvents)
		.where(where)
		// Ties keep insertion order, in the same direction (EpcisQueryOptions.orderBy).
		.orderBy(order(column), order(epcisEvents.id))
		.limit(size)
		.offset(offset);
	return { items, total };
}

/** How many events match, stopping at `cap` (eventCountLimit) when there is one. */
async function countMatching(db: Db, where: SQL | undefined, cap: number | undefined): Promise<number> {
	if (cap === undefined) {
		const [row] = await db.select({ n: count() }).from(epcisEvents).where(where);
		return row?.n ?? 0;
	}
	const capped = db.select({ one: sql`1` }).from(epcisEvents).where(where).limit(cap).as("capped");
	const [row] = await db.select({ n: count() }).from(capped);
	return row?.n ?? 0;
}

/** Every condition of the filter (AND across parameters; an empty list matches nothing). */
function conditions(db: Db, tenantId: string, filter: EpcisEventFilter): SQL[] {
	const c: SQL[] = [eq(epcisEvents.tenantId, tenantId)];
	const anyOf = (column: AnyColumn, values: readonly string[] | undefined) => {
		if (values) c.push(values.length === 0 ? nothing : inArray(column, [...values]));
	};
	anyOf(epcisEvents.type, filter.types);
	anyOf(epcisEvents.action, filter.actions);
	anyOf(epcisEvents.bizStep, filter.bizSteps);
	anyOf(epcisEvents.disposition, filter.dispositions);
	anyOf(epcisEvents.transformationId, filter.transformationIds);
	anyOf(epcisEvents.eventId, filter.eventIds);
	c.push(...timeRange(epcisEvents.eventTime, filter.eventTime));
	c.push(...timeRange(epcisEvents.recordTime, filter.recordTime));
	for (const match of filter.readPoint ?? []) c.push(stringMatch(epcisEvents.readPoint, match));
	for (const match of filter.bizLocation ?? []) c.push(stringMatch(epcisEvents.bizLocation, match));
	for (const value of filter.values ?? []) c.push(valueMatch(db, tenantId, value));
	return c;
}

/** Some value row of the event, of one of the kinds (and of the type, when given), matches. */
function valueMatch(db: Db, tenantId: string, value: ValueCondition): SQL {
	if (value.kinds.length === 0) return nothing;
	const c: SQL[] = [
		eq(epcisEventValues.tenantId, tenantId),
		inArray(epcisEventValues.kind, [...value.kinds]),
		stringMatch(epcisEventValues.value, value.match),
	];
	if (value.type !== undefined) c.push(eq(epcisEventValues.type, value.type));
	return exists(
		db
			.select({ one: sql`1` })
			.from(epcisEventValues)
			.where(and(eq(epcisEventValues.eventRow, epcisEvents.id), ...c)),
	);
}

function timeRange(column: AnyColumn, bounds: EpcisTimeRange | undefined): SQL[] {
	const c: SQL[] = [];
	if (bounds?.gte) c.push(gte(column, bounds.gte));
	if (bounds?.lt) c.push(lt(column, bounds.lt));
	if (bounds?.lte) c.push(lte(column, bounds.lte));
	return c;
}

/**
 * Any of the equalities or prefixes. A prefix is a LIKE on its escaped text: exact code points
 * in any collation (a `>=`/`<` range would follow the column's collation), and an index range
 * where the index is in the C collation.
 */
function stringMatch(column: AnyColumn, match: EpcisStringMatch): SQL {
	const parts: SQL[] = [];
	if (match.equals?.length) parts.push(inArray(column, [...match.equals]));
	for (const prefix of match.prefixes ?? []) parts.push(like(column, `${prefix.replace(/[\\%_]/g, "\\$&")}%`));
	return or(...parts) ?? nothing;
}
