import type { MessageListFilter, MessageRecord, Page, PageRequest } from "@as2kit/core/store";
import { and, count, desc, eq, gt, lt, type SQL, sql } from "drizzle-orm";
import type { Db } from "../connection.ts";
import { messages } from "../schema.ts";
import { window } from "./pg-page.ts";
import { containsIgnoringCase } from "./pg-search.ts";

type Condition = { name: keyof MessageListFilter; sql: SQL };

const toMessage = (row: typeof messages.$inferSelect): MessageRecord => row as MessageRecord;
const newestFirst = [desc(messages.createdAt), desc(messages.id)];

/**
 * A tenant's messages, newest first (created_at, then id). Every filter has an index that
 * ends in that order (schema.ts), so a page reads its own rows; a search may instead start
 * from the trigram indexes (migration 0001), as the planner finds cheaper. The total is exact,
 * or with `page.countLimit` counted only so far (`Page.totalExact` false).
 */
export async function listMessages(
	db: Db,
	tenantId: string,
	filter: MessageListFilter,
	page: PageRequest,
): Promise<Page<MessageRecord>> {
	const tenant = eq(messages.tenantId, tenantId);
	const filters = conditions(filter);
	const where = and(tenant, ...filters.map((c) => c.sql));
	const { limit, offset } = window(page);
	const rows = await db
		.select()
		.from(messages)
		.where(where)
		.orderBy(...newestFirst)
		.limit(limit + 1)
		.offset(offset);
	const more = rows.length > limit;
	const items = rows.slice(0, limit).map(toMessage);
	const known = knownTotal(items.length, offset, more);
	if (known !== null) return { items, total: known };
	if (page.countLimit === undefined) {
		const [counted] = await db.select({ n: count() }).from(messages).where(where);
		return { items, total: counted?.n ?? 0 };
	}
	// Counting a million rows takes longer than listing a page of them. One filter's index
	// (with the date range) drives the count, newest first, as far as countLimit past the offset;
	// the other filters are checked on each row it reaches. The cost follows the page asked for,
	// and a total that stopped short is a lower bound that still promises the next page.
	const cap = countCap(page, limit, offset);
	const { driver, residual } = splitForCount(filters);
	const walk = db
		.select({ hit: sql<boolean>`${residual.length ? and(...residual) : sql`true`}`.as("hit") })
		.from(messages)
		.where(and(tenant, ...driver))
		.orderBy(...newestFirst)
		.limit(cap)
		.as("walk");
	const [counted] = await db
		.select({ walked: count(), hits: sql<number>`count(*) filter (where ${walk.hit})`.mapWith(Number) })
		.from(walk);
	return finish(items, offset, more, counted!, cap);
}

/** The filters other than the tenant, by name. */
function conditions(filter: MessageListFilter): Condition[] {
	const c: Condition[] = [];
	const add = (name: keyof MessageListFilter, condition: SQL) => c.push({ name, sql: condition });
	if (filter.partnerId) add("partnerId", eq(messages.partnerId, filter.partnerId));
	if (filter.status) add("status", eq(messages.status, filter.status));
	if (filter.direction) add("direction", eq(messages.direction, filter.direction));
	if (filter.environment) add("environment", eq(messages.environment, filter.environment));
	if (filter.fromDate) add("fromDate", gt(messages.createdAt, filter.fromDate));
	if (filter.toDate) add("toDate", lt(messages.createdAt, filter.toDate));
	if (filter.search) add("search", containsIgnoringCase(filter.search, messages.subject, messages.messageId));
	if (filter.contentType) add("contentType", eq(messages.contentType, filter.contentType));
	// The very expression of messages_tenant_has_errors_idx, so that index serves it.
	if (filter.hasErrors !== undefined) add("hasErrors", sql`(${messages.errorCode} is not null) = ${filter.hasErrors}`);
	if (filter.mdnStatus) add("mdnStatus", eq(messages.mdnStatus, filter.mdnStatus));
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

/** Exact when the walk ended before its cap; else a lower bound that promises the next page. */
function finish(
	items: MessageRecord[],
	offset: number,
	more: boolean,
	counted: { walked: number; hits: number },
	cap: number,
): Page<MessageRecord> {
	if (counted.walked < cap) return { items, total: counted.hits };
	return { items, total: Math.max(counted.hits, offset + items.length + (more ? 1 : 0)), totalExact: false };
}
