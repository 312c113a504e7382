import type { EventRecord } from "@as2kit/core/store";
import { expect } from "vitest";
import { at } from "./fixtures.ts";
import type { ConformanceTest } from "./types.ts";

const event = (id: string, overrides: Partial<EventRecord> = {}): EventRecord => ({
	id,
	accountId: "acc_000001",
	tenantId: "tnt_000001",
	kind: "tenant.updated",
	data: { id: "tnt_000001", nested: { list: [1, "two", null, true] } },
	environment: "live",
	createdAt: at(1),
	...overrides,
});

export const eventTests = {
	"events - appendNew takes the next evt_ id, as ids.next would, and keeps the event whole": async ({ store }) => {
		const { id: _, ...fields } = event("");
		expect(await store.ids.next("evt_")).toBe("evt_000001");
		const first = await store.events.appendNew(fields);
		expect(first).toBe("evt_000002");
		expect(await store.events.get(first)).toEqual(event(first));
		// Ids from both ways come from one sequence, in a transaction too.
		expect(await store.ids.next("evt_")).toBe("evt_000003");
		const inTransaction = await store.transaction((tx) =>
			tx.events.appendNew({ ...fields, tenantId: null, kind: "account.updated", data: {} }),
		);
		expect(inTransaction).toBe("evt_000004");
		const listed = await store.events.list({ accountId: fields.accountId });
		expect(listed.map((e) => [e.id, e.kind])).toEqual([
			["evt_000002", "tenant.updated"],
			["evt_000004", "account.updated"],
		]);
		expect(
			(await store.events.list({ accountId: fields.accountId, subjectId: "tnt_000001" })).map((e) => e.id),
		).toEqual(["evt_000002"]);
	},
	"events - appended in order, JSON data intact, filtered": async ({ store }) => {
		await store.events.append(event("evt_000001"));
		await store.events.append(event("evt_000002", { kind: "account.updated", tenantId: null }));
		await store.events.append(event("evt_000003", { accountId: "acc_000002" }));
		await store.events.append(event("evt_000004"));
		expect(await store.events.get("evt_000001")).toEqual(event("evt_000001"));
		const all = await store.events.list({ accountId: "acc_000001" });
		expect(all.map((e) => e.id)).toEqual(["evt_000001", "evt_000002", "evt_000004"]);
		expect((await store.events.list({ accountId: "acc_000001", kind: "account.updated" })).map((e) => e.id)).toEqual([
			"evt_000002",
		]);
		expect((await store.events.list({ accountId: "acc_000001", afterId: "evt_000002" })).map((e) => e.id)).toEqual([
			"evt_000004",
		]);
		expect((await store.events.list({ accountId: "acc_000001", limit: 1 })).map((e) => e.id)).toEqual(["evt_000001"]);
	},
	"events - found by what they are about (data.id), in order": async ({ store }) => {
		const about = (id: string, subject: unknown, kind = "message.sent") =>
			event(id, { kind, data: { id: subject as string, status: "sent" } });
		await store.events.append(about("evt_000011", "msg_000001", "message.queued"));
		await store.events.append(about("evt_000012", "msg_000002"));
		await store.events.append(about("evt_000013", "msg_000001"));
		await store.events.append(about("evt_000014", 7));
		const timeline = await store.events.list({ accountId: "acc_000001", subjectId: "msg_000001" });
		expect(timeline.map((e) => [e.id, e.kind])).toEqual([
			["evt_000011", "message.queued"],
			["evt_000013", "message.sent"],
		]);
		// The record reads back as it was written: the subject is the store's index, not a field.
		expect(timeline[0]).toEqual(about("evt_000011", "msg_000001", "message.queued"));
		expect(await store.events.list({ accountId: "acc_000002", subjectId: "msg_000001" })).toEqual([]);
	},
} satisfies Record<string, ConformanceTest>;
