import type { MessageRecord } from "@as2kit/core/store";
import { expect } from "vitest";
import { expectConflict } from "./expect-conflict.ts";
import { at, T0 } from "./fixtures.ts";
import type { ConformanceTest } from "./types.ts";

export function message(id: string, overrides: Partial<MessageRecord> = {}): MessageRecord {
	return {
		id,
		accountId: "acc_000001",
		tenantId: "tnt_000001",
		environment: "live",
		direction: "outbound",
		messageId: `${id}@as2kit.example`,
		partnerId: "prt_000001",
		partnerName: "Partner",
		partnerAs2Id: "PARTNER",
		partnerUrl: "https://partner.example/as2",
		status: "queued",
		fromAs2Id: "ME",
		toAs2Id: "PARTNER",
		subject: `Order ${id}`,
		contentType: "application/edi-x12",
		filename: null,
		bytes: 100,
		compressed: false,
		encrypted: true,
		signed: true,
		mdnMode: "sync",
		mdnStatus: "pending",
		mdnData: null,
		rejectedMdns: [],
		mic: null,
		priority: "normal",
		headers: {},
		payloadKey: `payloads/${id}`,
		scheduledAt: null,
		attempts: 0,
		lastAttemptAt: null,
		sentAt: null,
		deliveredAt: null,
		failedAt: null,
		mdnDeadline: null,
		errorCode: null,
		errorMessage: null,
		transmissionTimeMs: null,
		details: {},
		createdAt: T0,
		updatedAt: T0,
		...overrides,
	};
}

const page = { page: 1, perPage: 50 };

export const messageTests = {
	"messages - stored whole, scoped to their tenant": async ({ store }) => {
		const full = message("msg_000001", {
			mdnData: {
				disposition: "automatic-action/MDN-sent-automatically; processed",
				receivedContentMic: "abc=, sha-256",
				reportingUa: "x",
				originalMessageId: "a@b",
				finalRecipient: "ME",
				signed: true,
				signatureValid: true,
				micMatches: true,
				messageId: "m@x",
				receivedAt: "2026-01-01T00:00:00.000Z",
			},
			headers: { "X-Custom": "1" },
			details: { layers: ["signed", "encrypted"] },
			scheduledAt: at(5),
		});
		await store.messages.create(full);
		expect(await store.messages.get("tnt_000001", "msg_000001")).toEqual(full);
		expect(await store.messages.get("tnt_000002", "msg_000001")).toBeNull();
		expect(await store.messages.getById("msg_000001")).toEqual(full);
	},
	"messages - rejected MDNs are appended atomically, the newest kept": async ({ store }) => {
		await store.messages.create(message("msg_000001", { status: "sent" }));
		const entry = (n: number) => ({
			receivedAt: at(n).toISOString(),
			reason: `forged ${n}`,
			disposition: "automatic-action/MDN-sent-automatically; processed",
			originalMessageId: "msg_000001@as2kit.example",
			messageId: null,
			reportingUa: n % 2 ? "Forger/1.0" : null,
			receivedContentMic: null,
			signed: n % 2 === 0,
			signatureValid: n % 2 === 0 ? false : null,
		});
		const first = await store.messages.addRejectedMdn("msg_000001", entry(1), 3);
		expect(first?.rejectedMdns).toEqual([entry(1)]);
		// Concurrent MDNs all land (no lost update), and only the newest `keep` stay, oldest first.
		await Promise.all([2, 3, 4, 5].map((n) => store.messages.addRejectedMdn("msg_000001", entry(n), 10)));
		const all = (await store.messages.getById("msg_000001"))!.rejectedMdns;
		expect(all.map((e) => e.reason).sort()).toEqual(["forged 1", "forged 2", "forged 3", "forged 4", "forged 5"]);
		expect(all[0]).toEqual(entry(1));
		const kept = await store.messages.addRejectedMdn("msg_000001", entry(6), 3);
		expect(kept?.rejectedMdns.map((e) => e.reason)).toEqual([all[3]!.reason, all[4]!.reason, "forged 6"]);
		expect(kept?.status).toBe("sent");
		expect(await store.messages.addRejectedMdn("msg_999999", entry(7), 3)).toBeNull();
	},
	"messages - createNew takes the next msg_ id, as ids.next would, and keeps the message whole": async ({ store }) => {
		const { id: _, ...fields } = message("");
		expect(await store.ids.next("msg_")).toBe("msg_000001");
		const first = await store.messages.createNew(fields);
		expect(first).toBe("msg_000002");
		expect(await store.messages.getById(first)).toEqual({ ...fields, id: first });
		expect(await store.ids.next("msg_")).toBe("msg_000003");
		const inTransaction = await store.transaction((tx) =>
			tx.messages.createNew({ ...fields, messageId: "second@as2kit.example" }),
		);
		expect(inTransaction).toBe("msg_000004");
		expect((await store.messages.getById(inTransaction))?.messageId).toBe("second@as2kit.example");
		const inbound = { ...fields, direction: "inbound" as const, status: "received" as const, messageId: "dup@partner" };
		await store.messages.createNew(inbound);
		await expectConflict(store.messages.createNew(inbound));
	},
	"messages - an inbound Message-ID is stored once per partner": async ({ store }) => {
		const inbound = { direction: "inbound" as const, status: "received" as const, messageId: "dup@partner" };
		await store.messages.create(message("msg_000001", inbound));
		await expectConflict(store.messages.create(message("msg_000002", inbound)));
		await store.messages.create(message("msg_000003", { ...inbound, partnerId: "prt_000002" }));
		await store.messages.create(message("msg_000004", { ...inbound, direction: "outbound", status: "queued" }));
		await store.messages.create(message("msg_000005", { ...inbound, direction: "outbound", status: "queued" }));
		expect(
			(
				await store.messages.findByMessageId("tnt_000001", "dup@partner", {
					direction: "inbound",
					partnerId: "prt_000001",
				})
			)?.id,
		).toBe("msg_000001");
		expect(await store.messages.findByMessageId("tnt_000002", "dup@partner", { direction: "inbound" })).toBeNull();
	},
	"messages - list filters, newest first": async ({ store }) => {
		await store.messages.create(
			message("msg_000001", { createdAt: at(1), status: "delivered", subject: "Invoice 42" }),
		);
		await store.messages.create(
			message("msg_000002", {
				createdAt: at(2),
				direction: "inbound",
				status: "received",
				encrypted: false,
				mdnStatus: "none",
			}),
		);
		await store.messages.create(
			message("msg_000003", {
				createdAt: at(3),
				status: "failed",
				errorCode: "PARTNER_UNREACHABLE",
				partnerId: "prt_000002",
			}),
		);
		await store.messages.create(
			message("msg_000004", { createdAt: at(4), contentType: "application/xml", signed: false, environment: "test" }),
		);
		await store.messages.create(message("msg_000005", { createdAt: at(5), tenantId: "tnt_000002" }));
		const ids = async (filter: object) =>
			(await store.messages.list("tnt_000001", filter, page)).items.map((m) => m.id.slice(-1)).join("");
		expect(await ids({})).toBe("4321");
		expect(await ids({ status: "delivered" })).toBe("1");
		expect(await ids({ direction: "inbound" })).toBe("2");
		expect(await ids({ partnerId: "prt_000002" })).toBe("3");
		expect(await ids({ fromDate: at(1), toDate: at(4) })).toBe("32");
		expect(await ids({ search: "invoice" })).toBe("1");
		expect(await ids({ search: "MSG_000003@" })).toBe("3");
		expect(await ids({ search: "%" })).toBe("");
		expect(await ids({ contentType: "application/xml" })).toBe("4");
		expect(await ids({ hasErrors: true })).toBe("3");
		expect(await ids({ hasErrors: false })).toBe("421");
		expect(await ids({ mdnStatus: "none" })).toBe("2");
		expect(await ids({ encrypted: false })).toBe("2");
		expect(await ids({ signed: false })).toBe("4");
		expect(await ids({ environment: "test" })).toBe("4");
		const second = await store.messages.list("tnt_000001", {}, { page: 2, perPage: 3 });
		expect([second.total, second.items.map((m) => m.id)]).toEqual([4, ["msg_000001"]]);
	},
	"messages - search finds substrings of subjects and Message-IDs, newest first, with every other filter": async ({
		store,
	}) => {
		await store.messages.create(message("msg_000001", { createdAt: at(1), subject: "Invoice 4711" }));
		await store.messages.create(message("msg_000002", { createdAt: at(2), subject: "PO 4711-A", status: "failed" }));
		await store.messages.create(
			message("msg_000003", { createdAt: at(3), subject: null, messageId: "abc-4711@partner.example" }),
		);
		await store.messages.create(message("msg_000004", { createdAt: at(3), subject: 'Say "hi" 50% off' }));
		await store.messages.create(
			message("msg_000005", { createdAt: at(4), subject: "Invoice 4711", tenantId: "tnt_000002" }),
		);
		await store.messages.create(message("msg_000006", { createdAt: at(5), subject: "Invoice 4712" }));
		const ids = async (filter: object, p = page) =>
			(await store.messages.list("tnt_000001", filter, p)).items.map((m) => m.id.slice(-1)).join("");
		expect(await ids({ search: "4711" })).toBe("321");
		expect(await ids({ search: "47" })).toBe("6321");
		expect(await ids({ search: "invoice 471" })).toBe("61");
		expect(await ids({ search: "PARTNER.EX" })).toBe("3");
		expect(await ids({ search: '"hi"' })).toBe("4");
		expect(await ids({ search: "50% off" })).toBe("4");
		expect(await ids({ search: "0%" })).toBe("4");
		expect(await ids({ search: "4711", status: "failed" })).toBe("2");
		expect(await ids({ search: "4711", fromDate: at(1), toDate: at(3) })).toBe("2");
		expect(await ids({ search: "4711", fromDate: at(2) })).toBe("3");
		expect(await ids({ search: "nothing like it" })).toBe("");
		// Two messages of one millisecond: the later id first, with or without the index.
		expect(await ids({ search: ".example" })).toBe("64321");
		expect(await ids({ search: "e" })).toBe("64321");
		const second = await store.messages.list("tnt_000001", { search: "4711" }, { page: 2, perPage: 2 });
		expect([second.total, second.items.map((m) => m.id)]).toEqual([3, ["msg_000001"]]);
		await store.messages.update("msg_000001", { subject: "Credit note" });
		expect(await ids({ search: "4711" })).toBe("32");
		expect(await ids({ search: "credit" })).toBe("1");
	},
	"messages - a search on many messages pages newest first, filtered, with totals": async ({ store }) => {
		// More matches than one forward pass of the index takes: the adapter walks them instead.
		await store.transaction(async (tx) => {
			for (let i = 1; i <= 260; i++) {
				const id = `msg_${String(i).padStart(6, "0")}`;
				await tx.messages.create(
					message(id, {
						createdAt: at(i % 2 === 0 ? i : 1000 - i),
						subject: `Invoice ${i}`,
						status: i % 10 === 0 ? "failed" : "queued",
						tenantId: i % 13 === 0 ? "tnt_000002" : "tnt_000001",
					}),
				);
			}
		});
		const mine = Array.from({ length: 260 }, (_, k) => k + 1)
			.filter((i) => i % 13 !== 0)
			.sort((x, y) => (y % 2 === 0 ? y : 1000 - y) - (x % 2 === 0 ? x : 1000 - x));
		const list = (filter: object, p: { page: number; perPage: number; countLimit?: number }) =>
			store.messages.list("tnt_000001", { search: "INVOICE", ...filter }, p);
		const first = await list({}, { page: 1, perPage: 5 });
		expect(first.items.map((m) => Number(m.id.slice(4)))).toEqual(mine.slice(0, 5));
		expect(first.total).toBe(mine.length);
		const third = await list({}, { page: 3, perPage: 100 });
		expect(third.items.map((m) => Number(m.id.slice(4)))).toEqual(mine.slice(200));
		expect(third.total).toBe(mine.length);
		const failed = mine.filter((i) => i % 10 === 0);
		const failedPage = await list({ status: "failed" }, { page: 2, perPage: 5 });
		expect(failedPage.items.map((m) => Number(m.id.slice(4)))).toEqual(failed.slice(5, 10));
		expect(failedPage.total).toBe(failed.length);
		const capped = await list({}, { page: 1, perPage: 5, countLimit: 10 });
		if (capped.totalExact === false) expect(capped.total).toBeGreaterThan(5);
		else expect(capped.total).toBe(mine.length);
		expect(capped.total).toBeLessThanOrEqual(mine.length);
		const range = await list({ fromDate: at(100), toDate: at(200) }, { page: 1, perPage: 100 });
		expect(range.items.map((m) => Number(m.id.slice(4)))).toEqual(
			mine.filter((i) => i % 2 === 0 && i > 100 && i < 200),
		);
	},
	"messages - a count limit makes a large total a lower bound past the page": async ({ store }) => {
		for (let i = 1; i <= 7; i++) {
			await store.messages.create(message(`msg_00000${i}`, { createdAt: at(i), signed: i % 2 === 1 }));
		}
		const list = (page: number, perPage: number, countLimit?: number) =>
			store.messages.list("tnt_000001", {}, { page, perPage, ...(countLimit === undefined ? {} : { countLimit }) });
		expect(await list(1, 2)).toMatchObject({ total: 7 });
		expect((await list(1, 2)).totalExact).not.toBe(false);
		expect(await list(1, 2, 100)).toMatchObject({ total: 7 });
		// Adapters may count exactly; a capped total is at least one past the page and never above the truth.
		for (const [page, perPage, countLimit] of [
			[1, 2, 1],
			[2, 2, 1],
			[1, 3, 2],
		] as const) {
			const result = await list(page, perPage, countLimit);
			expect(result.items).toHaveLength(perPage);
			if (result.totalExact === false) {
				expect(result.total).toBeGreaterThan(page * perPage);
				expect(result.total).toBeLessThan(7);
			} else expect(result.total).toBe(7);
		}
		// The same holds for combined filters and a search, alone or with filters that reject some of its matches.
		for (const [filter, matching] of [
			[{ search: "order" }, 7],
			[{ search: "order", status: "queued" }, 7],
			[{ status: "queued", encrypted: true }, 7],
			[{ status: "queued", signed: false }, 3],
			[{ search: "order", signed: false }, 3],
			[{ search: "or", signed: true }, 4],
		] as const) {
			const result = await store.messages.list("tnt_000001", filter, { page: 1, perPage: 2, countLimit: 1 });
			expect(result.items).toHaveLength(2);
			if (result.totalExact === false) expect(result.total).toBeGreaterThan(2);
			else expect(result.total).toBe(matching);
			expect(result.total).toBeLessThanOrEqual(matching);
			const all = await store.messages.list("tnt_000001", filter, { page: 1, perPage: 2 });
			expect([all.total, all.totalExact]).toEqual([matching, undefined]);
		}
		// The last page, even with a limit, knows the total; so does a page past the end.
		expect(await list(4, 2, 1)).toMatchObject({ total: 7, items: [{ id: "msg_000001" }] });
		expect((await list(4, 2, 1)).totalExact).not.toBe(false);
		expect(await list(9, 2, 1)).toMatchObject({ total: 7, items: [] });
	},
	"messages - a transition applies only from the given states, once under a race": async ({ store }) => {
		await store.messages.create(message("msg_000001"));
		const racers = await Promise.all(
			Array.from({ length: 5 }, (_, i) =>
				store.messages.transition("msg_000001", ["queued"], {
					status: "processing",
					attempts: i + 1,
					updatedAt: at(i),
				}),
			),
		);
		expect(racers.filter(Boolean)).toHaveLength(1);
		expect(await store.messages.transition("msg_000001", ["queued"], { status: "failed" })).toBeNull();
		const sent = await store.messages.transition("msg_000001", ["processing"], { status: "sent", sentAt: at(9) });
		expect(sent).toMatchObject({ status: "sent", sentAt: at(9) });
		const updated = await store.messages.update("msg_000001", { mdnDeadline: at(100), errorCode: "X" });
		expect(updated).toMatchObject({ status: "sent", mdnDeadline: at(100), errorCode: "X" });
	},
	"messages - overdue async MDNs are found for the timeout scan": async ({ store }) => {
		await store.messages.create(message("msg_000001", { status: "sent", mdnStatus: "pending", mdnDeadline: at(10) }));
		await store.messages.create(message("msg_000002", { status: "sent", mdnStatus: "pending", mdnDeadline: at(100) }));
		await store.messages.create(
			message("msg_000003", { status: "delivered", mdnStatus: "received", mdnDeadline: at(10) }),
		);
		expect((await store.messages.listMdnOverdue(at(50), 10)).map((m) => m.id)).toEqual(["msg_000001"]);
	},
	"messages - partner traffic: totals, success, timings and days": async ({ store }) => {
		const day1 = new Date("2026-01-01T10:00:00Z");
		const day2 = new Date("2026-01-02T10:00:00Z");
		await store.messages.create(
			message("msg_000001", { createdAt: day1, status: "delivered", deliveredAt: new Date(day1.getTime() + 4000) }),
		);
		await store.messages.create(message("msg_000002", { createdAt: day1, status: "failed" }));
		await store.messages.create(message("msg_000003", { createdAt: day2, status: "sent", mdnStatus: "none" }));
		await store.messages.create(
			message("msg_000004", {
				createdAt: day2,
				direction: "inbound",
				status: "received",
				updatedAt: new Date(day2.getTime() + 1000),
			}),
		);
		await store.messages.create(message("msg_000005", { createdAt: day2, partnerId: "prt_000002" }));
		const traffic = await store.messages.partnerTraffic("tnt_000001", "prt_000001", new Date("2025-12-01Z"));
		expect(traffic).toEqual({
			sent: 3,
			received: 1,
			outboundSucceeded: 2,
			outboundFailed: 1,
			inboundFailed: 0,
			avgOutboundSeconds: 4,
			avgInboundSeconds: 1,
			lastMessageAt: day2,
			days: [
				{ date: "2026-01-01", sent: 2, received: 0, failures: 1 },
				{ date: "2026-01-02", sent: 1, received: 1, failures: 0 },
			],
		});
		const none = await store.messages.partnerTraffic("tnt_000001", "prt_000009", T0);
		expect(none).toMatchObject({ sent: 0, received: 0, avgOutboundSeconds: null, lastMessageAt: null, days: [] });
	},
} satisfies Record<string, ConformanceTest>;
