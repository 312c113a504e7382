import type { MessageListFilter, MessageRecord, Page, PageRequest } from "@as2kit/core/store";
import { and, count, desc, eq, gt, inArray, lt, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "../connection.ts";
import { messages } from "../schema.ts";
import { indexPendingMessages } from "../search-indexing.ts";
import { window } from "./pagination.ts";

/** Search keys are created_at (ms) × 2^20 + a slot in the millisecond (migration 0006). */
const SLOTS = 1_048_576n;
/** Trigrams find substrings of three characters or more; shorter ones are matched row by row. */
const MIN_INDEXED_SEARCH = 3;
/** A search term on at most this many messages (of any tenant) is answered from one forward pass. */
const SEARCH_PROBE = 200;

type Filter = Omit<MessageListFilter, "search">;
type Condition = { name: keyof MessageListFilter; sql: SQL };

const toMessage = (row: typeof messages.$inferSelect): MessageRecord => row as MessageRecord;

/**
 * A tenant's messages, newest first (created_at, then id). Every filter has an index that
 * keeps that order (schema.ts), so a page reads its own rows; a search of three characters or
 * more walks the trigram index, whose keys keep the same order. The total is exact, or with
 * `page.countLimit` counted only so far (`Page.totalExact` false).
 */
export function listMessages(
	db: Db,
	tenantId: string,
	filter: MessageListFilter,
	page: PageRequest,
): Page<MessageRecord> {
	const { search, ...rest } = filter;
	if (search !== undefined && [...search].length >= MIN_INDEXED_SEARCH)
		return searched(db, tenantId, search, rest, page);
	const tenant = eq(messages.tenantId, tenantId);
	const filters = conditions(rest);
	if (search) filters.push({ name: "search", sql: substring(search) });
	const where = and(tenant, ...filters.map((c) => c.sql));
	const { limit, offset } = window(page);
	const rows = db
		.select()
		.from(messages)
		.where(where)
		.orderBy(desc(messages.createdAt), desc(messages.id))
		.limit(limit + 1)
		.offset(offset)
		.all();
	const more = rows.length > limit;
	const items = rows.slice(0, limit).map(toMessage);
	const known = knownTotal(items.length, offset, more);
	if (known !== null) return { items, total: known };
	if (page.countLimit === undefined) {
		return { items, total: db.select({ n: count() }).from(messages).where(where).get()?.n ?? 0 };
	}
	// Counting a million rows takes longer than listing a page of them. One filter's index
	// (with the date range) drives the count, newest first, as far as countLimit past the offset;
	// the other filters are checked on each row it reaches. The cost follows the page asked for,
	// and a total that stopped short is a lower bound that still promises the next page.
	const cap = countCap(page, limit, offset);
	const { driver, residual } = splitForCount(filters);
	const walk = db
		.select({ hit: residual.length ? sql<number>`(${and(...residual)})`.as("hit") : sql<number>`1`.as("hit") })
		.from(messages)
		.where(and(tenant, ...driver))
		.orderBy(desc(messages.createdAt), desc(messages.id))
		.limit(cap)
		.as("walk");
	const counted = db
		.select({ walked: count(), hits: sql<number>`coalesce(sum(${walk.hit}), 0)` })
		.from(walk)
		.get()!;
	return finish(items, offset, more, counted, cap);
}

/**
 * A search of three characters or more, through the trigram index. FTS5 reads its matches
 * forward several times faster than backward, so a first forward pass takes up to
 * SEARCH_PROBE of them: when that is all there are (a term on a few messages, the usual
 * search), they are the answer, sorted here, with an exact total. A term on more messages
 * is walked newest first instead, each match checked against the tenant and the other filters
 * until the page is full; counting walks it forward, as far as countLimit past the offset.
 */
function searched(db: Db, tenantId: string, term: string, filter: Filter, page: PageRequest): Page<MessageRecord> {
	// Messages stored since the last background batch are indexed first: a search sees every
	// stored message, as when each insert indexed its own (search-indexing.ts).
	indexPendingMessages(db.$client);
	const { limit, offset } = window(page);
	const others = conditions(filter);
	const residual = others.length ? and(...others.map((c) => c.sql)) : undefined;
	// One FTS5 phrase: the trigram tokenizer makes it "contains this substring". Quotes double.
	const phrase = `"${term.replaceAll('"', '""')}"`;
	const match = and(
		sql`message_search MATCH ${phrase}`,
		// created_at > from ⇔ key ≥ (from + 1) × 2^20; created_at < to ⇔ key < to × 2^20.
		...(filter.fromDate ? [sql`message_search.rowid >= ${(BigInt(filter.fromDate.getTime()) + 1n) * SLOTS}`] : []),
		...(filter.toDate ? [sql`message_search.rowid < ${BigInt(filter.toDate.getTime()) * SLOTS}`] : []),
	);
	const tenant = sql`message_search_rows.tenant_id = ${tenantId}`;
	const wanted = residual ? and(tenant, residual)! : tenant;
	// CROSS JOIN fixes the order: the index's matches drive, and each is checked.
	const walk = residual
		? sql`message_search CROSS JOIN message_search_rows ON message_search_rows.row = message_search.rowid CROSS JOIN messages ON messages.id = message_search_rows.message_pk`
		: sql`message_search CROSS JOIN message_search_rows ON message_search_rows.row = message_search.rowid`;

	const probe = db.all<{ id: string; wanted: number }>(
		sql`SELECT message_search_rows.message_pk AS id, (${wanted}) AS wanted FROM ${walk} WHERE ${match} ORDER BY message_search.rowid LIMIT ${SEARCH_PROBE + 1}`,
	);
	let ids: string[];
	let found: { total: number } | null = null;
	if (probe.length <= SEARCH_PROBE) {
		const all = probe.filter((row) => row.wanted).map((row) => row.id);
		all.reverse();
		ids = all.slice(offset, offset + limit + 1);
		found = { total: all.length };
	} else {
		ids = db
			.all<{ id: string }>(
				sql`SELECT message_search_rows.message_pk AS id FROM ${walk} WHERE ${and(match, wanted)} ORDER BY message_search.rowid DESC LIMIT ${limit + 1} OFFSET ${offset}`,
			)
			.map((row) => row.id);
	}
	const more = ids.length > limit;
	const pageIds = ids.slice(0, limit);
	const rows = pageIds.length ? db.select().from(messages).where(inArray(messages.id, pageIds)).all() : [];
	const byId = new Map(rows.map((row) => [row.id, toMessage(row)]));
	const items = pageIds.map((id) => byId.get(id)!);
	if (found) return { items, total: found.total };

	const known = knownTotal(items.length, offset, more);
	if (known !== null) return { items, total: known };
	const cap = page.countLimit === undefined ? null : countCap(page, limit, offset);
	const bound = cap === null ? sql`` : sql` LIMIT ${cap}`;
	// Counting needs no order: forward, the index's fast direction.
	const counted = db.get<{ walked: number; hits: number }>(
		sql`SELECT count(*) AS walked, coalesce(sum(hit), 0) AS hits FROM (SELECT ${residual ?? sql`1`} AS hit FROM ${walk} WHERE ${and(match, tenant)} ORDER BY message_search.rowid${bound})`,
	)!;
	return finish(items, offset, more, counted, cap);
}

/** The filters other than the tenant and the search, by name. */
function conditions(filter: Filter): Condition[] {
	const c: Condition[] = [];
	const add = (name: keyof Filter, condition: SQL) => c.push({ name, sql: condition });
	if (filter.partnerId) add("partnerId", eq(messages.partnerId, filter.partnerId));
	if (filter.status) add("status", eq(messages.status, filter.status));
	if (filter.direction) add("direction", eq(messages.direction, filter.direction));
	if (filter.environment) add("environment", eq(messages.environment, filter.environment));
	if (filter.fromDate) add("fromDate", gt(messages.createdAt, filter.fromDate));
	if (filter.toDate) add("toDate", lt(messages.createdAt, filter.toDate));
	if (filter.contentType) add("contentType", eq(messages.contentType, filter.contentType));
	// The very expression of messages_tenant_has_errors_idx, so that index serves it.
	if (filter.hasErrors !== undefined)
		add("hasErrors", sql`(${messages.errorCode} IS NOT NULL) = ${filter.hasErrors ? 1 : 0}`);
	if (filter.mdnStatus) add("mdnStatus", eq(messages.mdnStatus, filter.mdnStatus));
	if (filter.encrypted !== undefined) add("encrypted", eq(messages.encrypted, filter.encrypted));
	if (filter.signed !== undefined) add("signed", eq(messages.signed, filter.signed));
	return c;
}

/** Which filter's index drives a count, in order of how few messages they usually leave. */
const DRIVERS: (keyof Filter)[] = [
	"hasErrors",
	"mdnStatus",
	"status",
	"partnerId",
	"contentType",
	"environment",
	"direction",
	"encrypted",
	"signed",
];

/** The conditions one index answers (with the date range, which every index orders), and the rest. */
function splitForCount(filters: Condition[]): { driver: SQL[]; residual: SQL[] } {
	const names = new Set(filters.map((c) => c.name));
	const chosen: (keyof MessageListFilter)[] =
		names.has("partnerId") && names.has("status")
			? ["partnerId", "status"]
			: DRIVERS.filter((name) => names.has(name)).slice(0, 1);
	const inDriver = (c: Condition) => chosen.includes(c.name) || c.name === "fromDate" || c.name === "toDate";
	return {
		driver: filters.filter(inDriver).map((c) => c.sql),
		residual: filters.filter((c) => !inDriver(c)).map((c) => c.sql),
	};
}

/** A search too short for trigrams: a case-insensitive LIKE on each row. */
function substring(term: string): SQL {
	const pattern = `%${term.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
	return or(
		sql`lower(${messages.subject}) LIKE ${pattern} ESCAPE '\\'`,
		sql`lower(${messages.messageId}) LIKE ${pattern} ESCAPE '\\'`,
	)!;
}

/** When the page ends the list, its total needs no count; null otherwise (or past the end). */
function knownTotal(found: number, offset: number, more: boolean): number | null {
	if (more) return null;
	if (found > 0 || offset === 0) return offset + found;
	return null;
}

/** How far a capped count walks: countLimit past the offset, and always past this page. */
function countCap(page: PageRequest, limit: number, offset: number): number {
	return offset + Math.max(page.countLimit ?? 0, limit + 1);
}

/**
 * Exact when the walk ended before its cap; else a lower bound that promises the next page.
 * Only a page with items says how far the list reaches: an empty page (past the end) says the
 * opposite, that nothing matches from its offset on, so its bound is what the walk counted.
 */
function finish(
	items: MessageRecord[],
	offset: number,
	more: boolean,
	counted: { walked: number; hits: number },
	cap: number | null,
): Page<MessageRecord> {
	if (cap === null || counted.walked < cap) return { items, total: counted.hits };
	const reached = items.length > 0 ? offset + items.length + (more ? 1 : 0) : 0;
	return { items, total: Math.max(counted.hits, reached), totalExact: false };
}
