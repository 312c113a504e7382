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
} satisfies Record<string, ConformanceTest>;
