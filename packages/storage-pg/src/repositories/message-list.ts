import type { MessageListFilter, MessageRecord, Page, PageRequest } from "@as2kit/core/store";
import { and, count, desc, eq, getTableColumns, gt, lt, type SQL, sql } from "drizzle-orm";
import type { Db } from "../connection.ts";
import { messageStates, messages } from "../schema.ts";
import { window } from "./pg-page.ts";
import { containsIgnoringCase } from "./pg-search.ts";

/** `reads`: which table the condition's columns are on. */
type Condition = { name: keyof MessageListFilter; sql: SQL; reads: Table };
type Table = "messages" | "states";
/**
 * Where the tenant, partner, status, MDN-status and date conditions read: `states` puts them on
 * message_states (its indexes serve the status and MDN-status filters, schema.ts), `messages` on
 * `messages`, whose columns stay current too (the same statements write both tables).
 */
type Side = Table;

const toMessage = (row: typeof messages.$inferSelect): MessageRecord => row as MessageRecord;
const MESSAGE_COLUMNS = getTableColumns(messages);
const newestFirst = (side: Side) => {
	const t = side === "states" ? messageStates : messages;
	return [desc(t.createdAt), desc(t.id)];
};
const ofTenant = (side: Side, tenantId: string) =>
	eq((side === "states" ? messageStates : messages).tenantId, tenantId);

/**
 * A tenant's messages, newest first (created_at, then id). Every filter has an index that
 * ends in that order (schema.ts: on `messages`, or for the status and MDN-status filters on
 * message_states), so a page reads its own rows; a search may instead start from the trigram
 * indexes (migration 0001), as the planner finds cheaper. The total is exact, or with
 * `page.countLimit` counted only so far (`Page.totalExact` false).
 *
 * When a status or MDN-status filter's index drives (driverOf), the statements walk that index
 * of message_states and read each row's message by its key, checking the filters of `messages`
 * there: a LATERAL subquery that its LIMIT 1 (one row by the key) keeps from being flattened
 * into a join (drizzle leaves out an OFFSET 0). As a join, the planner misjudged it (two
 * tables' filters it cannot know correlated, ILIKE's cost) and chose a hash join over a
 * sequential scan of `messages` (20,000 messages: 26–35 ms against 1–6 ms before;
 * bench/list-plans.mjs). Walked so, a statement reads the rows the status index of `messages`
 * gave before, plus a lookup by key each.
 */
export async function listMessages(
	db: Db,
	tenantId: string,
	filter: MessageListFilter,
	page: PageRequest,
): Promise<Page<MessageRecord>> {
	const chosen = driverOf(filter);
	const side: Side = chosen.some((name) => name === "status" || name === "mdnStatus") ? "states" : "messages";
	const filters = conditions(filter, side);
	const { limit, offset } = window(page);
	const rows =
		side === "states"
			? await pageOfStates(db, tenantId, filters, limit + 1, offset)
			: await db
					.select()
					.from(messages)
					.where(and(ofTenant(side, tenantId), ...filters.map((c) => c.sql)))
					.orderBy(...newestFirst(side))
					.limit(limit + 1)
					.offset(offset);
	const more = rows.length > limit;
	const items = rows.slice(0, limit).map(toMessage);
	const known = knownTotal(items.length, offset, more);
	if (known !== null) return { items, total: known };
	if (page.countLimit === undefined) {
		return { items, total: await countAll(db, side, tenantId, filters) };
	}
	// Counting a million rows takes longer than listing a page of them. One filter's index
	// (with the date range) drives the count, newest first, as far as countLimit past the offset;
	// the other filters are checked on each row it reaches. The cost follows the page asked for,
	// and a total that stopped short is a lower bound that still promises the next page.
	const cap = countCap(page, limit, offset);
	const { driver, residual } = splitForCount(filters, chosen);
	const onMessages = side === "states" ? residual.filter((c) => c.reads === "messages") : [];
	const here = residual.filter((c) => !onMessages.includes(c));
	const checked =
		onMessages.length > 0
			? db
					.select({ hit: sql<boolean>`${and(...onMessages.map((c) => c.sql))}`.as("hit") })
					.from(messages)
					.where(eq(messages.id, messageStates.id))
					.limit(1)
					.as("checked")
			: null;
	const hit = and(...here.map((c) => c.sql), ...(checked ? [sql`${checked.hit}`] : [])) ?? sql`true`;
	const source = db
		.select({ hit: sql<boolean>`${hit}`.as("hit") })
		.from(side === "states" ? messageStates : messages)
		.$dynamic();
	const walk = (checked ? source.crossJoinLateral(checked) : source)
		.where(and(ofTenant(side, tenantId), ...driver.map((c) => c.sql)))
		.orderBy(...newestFirst(side))
		.limit(cap)
		.as("walk");
	const [counted] = await db
		.select({ walked: count(), hits: sql<number>`count(*) filter (where ${walk.hit})`.mapWith(Number) })
		.from(walk);
	return finish(items, offset, more, counted!, cap);
}

/** A message_states row's message (the LATERAL above), where the conditions on `messages` hold. */
const messageOf = (db: Db, onMessages: Condition[]) =>
	db
		.select(MESSAGE_COLUMNS)
		.from(messages)
		.where(and(eq(messages.id, messageStates.id), ...onMessages.map((c) => c.sql)))
		.limit(1)
		.as("wide");

/** Whether a message_states row's message meets the conditions on `messages` (a row, or none). */
const meets = (db: Db, onMessages: Condition[]) =>
	db
		.select({ one: sql<number>`1`.as("one") })
		.from(messages)
		.where(and(eq(messages.id, messageStates.id), ...onMessages.map((c) => c.sql)))
		.limit(1)
		.as("wide");

/** A page driven by an index of message_states, each row's message read by its key. */
async function pageOfStates(
	db: Db,
	tenantId: string,
	filters: Condition[],
	limit: number,
	offset: number,
): Promise<(typeof messages.$inferSelect)[]> {
	const wide = messageOf(
		db,
		filters.filter((c) => c.reads === "messages"),
	);
	const fields = Object.fromEntries(Object.keys(MESSAGE_COLUMNS).map((key) => [key, wide[key as keyof typeof wide]]));
	const rows = await db
		.select(fields as unknown as typeof MESSAGE_COLUMNS)
		.from(messageStates)
		.crossJoinLateral(wide)
		.where(and(ofTenant("states", tenantId), ...filters.filter((c) => c.reads === "states").map((c) => c.sql)))
		.orderBy(...newestFirst("states"))
		.limit(limit)
		.offset(offset);
	return rows as (typeof messages.$inferSelect)[];
}

/** How many of the tenant's messages the filters leave (an exact count). */
async function countAll(db: Db, side: Side, tenantId: string, filters: Condition[]): Promise<number> {
	const n = { n: count() };
	const [counted] =
		side === "messages"
			? await db
					.select(n)
					.from(messages)
					.where(and(ofTenant(side, tenantId), ...filters.map((c) => c.sql)))
			: await countStates(db, tenantId, filters);
	return counted?.n ?? 0;
}

function countStates(db: Db, tenantId: string, filters: Condition[]) {
	const onMessages = filters.filter((c) => c.reads === "messages");
	const where = and(ofTenant("states", tenantId), ...filters.filter((c) => c.reads === "states").map((c) => c.sql));
	const states = db.select({ n: count() }).from(messageStates);
	return onMessages.length === 0 ? states.where(where) : states.crossJoinLateral(meets(db, onMessages)).where(where);
}

/** The filters other than the tenant, by name, with the narrow ones read on `side`. */
function conditions(filter: MessageListFilter, side: Side): Condition[] {
	const c: Condition[] = [];
	const narrow = side === "states" ? messageStates : messages;
	const add = (name: keyof MessageListFilter, condition: SQL, reads: Table = "messages") =>
		c.push({ name, sql: condition, reads });
	if (filter.partnerId) add("partnerId", eq(narrow.partnerId, filter.partnerId), side);
	if (filter.status) add("status", eq(narrow.status, filter.status), side);
	if (filter.direction) add("direction", eq(messages.direction, filter.direction));
	if (filter.environment) add("environment", eq(messages.environment, filter.environment));
	if (filter.fromDate) add("fromDate", gt(narrow.createdAt, filter.fromDate), side);
	if (filter.toDate) add("toDate", lt(narrow.createdAt, filter.toDate), side);
	if (filter.search) add("search", containsIgnoringCase(filter.search, messages.subject, messages.messageId));
	if (filter.contentType) add("contentType", eq(messages.contentType, filter.contentType));
	// The very expression of messages_tenant_has_errors_idx, so that index serves it.
	if (filter.hasErrors !== undefined) add("hasErrors", sql`(${messages.errorCode} is not null) = ${filter.hasErrors}`);
	if (filter.mdnStatus) add("mdnStatus", eq(narrow.mdnStatus, filter.mdnStatus), side);
	if (filter.encrypted !== undefined) add("encrypted", eq(messages.encrypted, filter.encrypted));
	if (filter.signed !== undefined) add("signed", eq(messages.signed, filter.signed));
	return c;
}

/** Which filter's index drives a count, in order of how few messages they usually leave. */
const DRIVERS: (keyof MessageListFilter)[] = [
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

/** The filters whose index drives a count: partner and status together, else the first of DRIVERS asked. */
function driverOf(filter: MessageListFilter): (keyof MessageListFilter)[] {
	const names = new Set(conditions(filter, "messages").map((c) => c.name));
	if (names.has("partnerId") && names.has("status")) return ["partnerId", "status"];
	return DRIVERS.filter((name) => names.has(name)).slice(0, 1);
}

/** The conditions one index answers (with the date range, which every index orders), and the rest. */
function splitForCount(
	filters: Condition[],
	chosen: (keyof MessageListFilter)[],
): { driver: Condition[]; residual: Condition[] } {
	const inDriver = (c: Condition) => chosen.includes(c.name) || c.name === "fromDate" || c.name === "toDate";
	return { driver: filters.filter(inDriver), residual: filters.filter((c) => !inDriver(c)) };
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
	cap: number,
): Page<MessageRecord> {
	if (counted.walked < cap) return { items, total: counted.hits };
	const reached = items.length > 0 ? offset + items.length + (more ? 1 : 0) : 0;
	return { items, total: Math.max(counted.hits, reached), totalExact: false };
}
