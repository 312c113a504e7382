import type { MessageListFilter, MessageRecord, PageRequest } from "@as2kit/core/store";
import { expect } from "vitest";
import { at } from "./fixtures.ts";
import { message } from "./messages.ts";
import type { ConformanceTest } from "./types.ts";

// The list's filters against a plain model of them, in every combination the adapters serve
// with different indexes (storage-pg keeps the status and MDN-status columns in a table of
// their own, written by the statements that write a message): the status filters with partner,
// date range, search, the other filters, pagination and a capped count, and after moves.

export const TENANT = "tnt_000001";

/** What `list` must return for a filter, newest first (created_at, then id). */
function expected(all: MessageRecord[], filter: MessageListFilter): string[] {
	const contains = (text: string | null, term: string) => text?.toLowerCase().includes(term.toLowerCase()) ?? false;
	return all
		.filter(
			(m) =>
				m.tenantId === TENANT &&
				(filter.partnerId === undefined || m.partnerId === filter.partnerId) &&
				(filter.status === undefined || m.status === filter.status) &&
				(filter.mdnStatus === undefined || m.mdnStatus === filter.mdnStatus) &&
				(filter.direction === undefined || m.direction === filter.direction) &&
				(filter.environment === undefined || m.environment === filter.environment) &&
				(filter.contentType === undefined || m.contentType === filter.contentType) &&
				(filter.encrypted === undefined || m.encrypted === filter.encrypted) &&
				(filter.signed === undefined || m.signed === filter.signed) &&
				(filter.hasErrors === undefined || (m.errorCode !== null) === filter.hasErrors) &&
				(filter.fromDate === undefined || m.createdAt > filter.fromDate) &&
				(filter.toDate === undefined || m.createdAt < filter.toDate) &&
				(filter.search === undefined || contains(m.subject, filter.search) || contains(m.messageId, filter.search)),
		)
		.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
		.map((m) => m.id);
}

/** Every page of the filter, the totals exact, and a capped count never above the truth. */
export async function expectListed(
	list: (
		filter: MessageListFilter,
		page: PageRequest,
	) => Promise<{ items: MessageRecord[]; total: number; totalExact?: boolean }>,
	all: MessageRecord[],
	filter: MessageListFilter,
): Promise<void> {
	const want = expected(all, filter);
	const label = JSON.stringify(filter);
	const perPage = 3;
	for (let page = 1; page <= Math.max(1, Math.ceil(want.length / perPage)); page++) {
		const got = await list(filter, { page, perPage });
		expect(
			got.items.map((m) => m.id),
			`${label} page ${page}`,
		).toEqual(want.slice((page - 1) * perPage, page * perPage));
		expect(got.total, `${label} total`).toBe(want.length);
		const capped = await list(filter, { page, perPage, countLimit: 1 });
		expect(
			capped.items.map((m) => m.id),
			`${label} page ${page}, capped`,
		).toEqual(got.items.map((m) => m.id));
		if (capped.totalExact === false) {
			expect(capped.total, `${label} capped total`).toBeGreaterThan(page * perPage);
			expect(capped.total, `${label} capped total`).toBeLessThanOrEqual(want.length);
		} else expect(capped.total, `${label} capped total`).toBe(want.length);
	}
	// A page past the end counts the filter's messages; capped, its total is still never above
	// the truth (it was the page's offset once: a filter matching nothing answered page 2 with
	// total 3, and so a last_page of 1, in both adapters).
	const beyond = Math.ceil(want.length / perPage) + 2;
	const past = await list(filter, { page: beyond, perPage });
	expect([past.items, past.total], `${label} past the end`).toEqual([[], want.length]);
	const pastCapped = await list(filter, { page: beyond, perPage, countLimit: 1 });
	expect(pastCapped.items, `${label} past the end, capped`).toEqual([]);
	if (pastCapped.totalExact === false)
		expect(pastCapped.total, `${label} past the end, capped total`).toBeLessThanOrEqual(want.length);
	else expect(pastCapped.total, `${label} past the end, capped total`).toBe(want.length);
}

const STATUSES = ["queued", "processing", "sent", "delivered", "failed"] as const;
const MDN_STATUSES = ["none", "pending", "received", "failed", "timeout"] as const;

/** 40 messages of two tenants, two partners, every status and MDN status, some at one instant. */
export function messages(): MessageRecord[] {
	return Array.from({ length: 40 }, (_, k) => {
		const i = k + 1;
		const inbound = i % 7 === 0;
		return message(`msg_${String(i).padStart(6, "0")}`, {
			tenantId: i % 11 === 0 ? "tnt_000002" : TENANT,
			partnerId: i % 3 === 0 ? "prt_000002" : "prt_000001",
			direction: inbound ? "inbound" : "outbound",
			status: inbound ? "received" : STATUSES[i % STATUSES.length]!,
			mdnStatus: MDN_STATUSES[(i * 3) % MDN_STATUSES.length]!,
			subject: i % 4 === 0 ? `Invoice ${i}` : `Order ${i}`,
			errorCode: i % 5 === 4 ? "PARTNER_UNREACHABLE" : null,
			signed: i % 2 === 0,
			// Pairs of messages share an instant: the id breaks the tie.
			createdAt: at(Math.floor(i / 2) * 60),
		});
	});
}

/** The combinations of the status filters with the others that the tests run. */
export const FILTERS: MessageListFilter[] = [
	{ status: "queued" },
	{ status: "failed" },
	{ status: "received" },
	{ mdnStatus: "pending" },
	{ mdnStatus: "timeout" },
	{ status: "queued", partnerId: "prt_000001" },
	{ status: "sent", partnerId: "prt_000002" },
	{ mdnStatus: "received", partnerId: "prt_000002" },
	{ status: "delivered", mdnStatus: "received" },
	{ status: "queued", fromDate: at(300), toDate: at(900) },
	{ status: "queued", partnerId: "prt_000001", fromDate: at(120) },
	{ mdnStatus: "none", toDate: at(1000) },
	{ status: "failed", search: "invoice" },
	{ mdnStatus: "pending", search: "ORDER 1" },
	{ status: "queued", search: "order", partnerId: "prt_000001", fromDate: at(60), toDate: at(1140) },
	{ status: "failed", hasErrors: true },
	{ status: "processing", hasErrors: false, signed: true },
	{ mdnStatus: "failed", hasErrors: true, direction: "outbound" },
	{ status: "sent", direction: "outbound", environment: "live", encrypted: true, contentType: "application/edi-x12" },
	{ status: "queued", partnerId: "prt_000009" },
	{ partnerId: "prt_000002", fromDate: at(200) },
	{ search: "invoice", hasErrors: false },
	{},
];

export const messageFilterTests = {
	"messages - the status and MDN-status filters combine with every other filter, paged and counted": async ({
		store,
	}) => {
		const all = messages();
		await store.transaction(async (tx) => {
			for (const m of all) await tx.messages.create(m);
		});
		const list = (filter: MessageListFilter, page: PageRequest) => store.messages.list(TENANT, filter, page);
		for (const filter of FILTERS) await expectListed(list, all, filter);
	},
	"messages - a move lists a message under its new status and MDN status only": async ({ store }) => {
		const all = messages();
		await store.transaction(async (tx) => {
			for (const m of all.slice(1)) await tx.messages.create(m);
		});
		// One made by createNew, as the service makes them.
		const { id: _, ...fields } = all[0]!;
		all[0] = { ...fields, id: await store.messages.createNew(fields) };
		const list = (filter: MessageListFilter, page: PageRequest) => store.messages.list(TENANT, filter, page);
		const replace = (moved: MessageRecord | null) => {
			expect(moved).not.toBeNull();
			all[all.findIndex((m) => m.id === moved!.id)] = moved!;
		};
		const queued = all.filter((m) => m.tenantId === TENANT && m.status === "queued");
		expect(queued.length).toBeGreaterThan(3);
		// Out of `queued` by transitions; one that does not apply moves nothing.
		for (const m of queued.slice(0, 3)) {
			replace(await store.messages.transition(m.id, ["queued"], { status: "processing", updatedAt: at(5000) }));
		}
		expect(await store.messages.transition(queued[0]!.id, ["queued"], { status: "failed" })).toBeNull();
		replace(
			await store.messages.transition(queued[0]!.id, ["processing"], {
				status: "sent",
				mdnStatus: "pending",
				mdnDeadline: at(9000),
			}),
		);
		// The MDN status and deadline moved by an update, as a late MDN does.
		replace(await store.messages.update(queued[1]!.id, { mdnStatus: "timeout", errorCode: "MDN_TIMEOUT" }));
		// A move rolled back with its transaction leaves the message where it was.
		await expect(
			store.transaction(async (tx) => {
				await tx.messages.transition(queued[3]!.id, ["queued"], { status: "delivered", mdnStatus: "received" });
				throw new Error("rolled back");
			}),
		).rejects.toThrow("rolled back");
		for (const filter of [
			{ status: "queued" },
			{ status: "processing" },
			{ status: "sent" },
			{ status: "delivered" },
			{ mdnStatus: "pending" },
			{ mdnStatus: "timeout" },
			{ mdnStatus: "received" },
			{ status: "queued", partnerId: queued[0]!.partnerId },
			{ status: "processing", partnerId: queued[1]!.partnerId, search: "o" },
			{ status: "sent", mdnStatus: "pending" },
			{ mdnStatus: "timeout", hasErrors: true },
		] as MessageListFilter[])
			await expectListed(list, all, filter);
		// The MDN timeout scan sees the moves too: due once its deadline passed, and gone once its MDN came.
		expect((await store.messages.listMdnOverdue(at(8999), 10)).map((m) => m.id)).not.toContain(queued[0]!.id);
		expect((await store.messages.listMdnOverdue(at(9001), 100)).map((m) => m.id)).toContain(queued[0]!.id);
		await store.messages.transition(queued[0]!.id, ["sent"], { status: "delivered", mdnStatus: "received" });
		expect((await store.messages.listMdnOverdue(at(9001), 100)).map((m) => m.id)).not.toContain(queued[0]!.id);
	},
} satisfies Record<string, ConformanceTest>;
