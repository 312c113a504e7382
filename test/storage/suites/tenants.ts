import { expect } from "vitest";
import { expectConflict } from "./expect-conflict.ts";
import { account, at, tenant, twoAccounts } from "./fixtures.ts";
import type { ConformanceTest } from "./types.ts";

export const tenantTests = {
	"tenants - another account's tenant looks missing": async ({ store }) => {
		await twoAccounts(store);
		expect((await store.tenants.get("acc_000001", "tnt_000001"))?.name).toBe("Tenant tnt_000001");
		expect(await store.tenants.get("acc_000001", "tnt_000002")).toBeNull();
		expect(await store.tenants.update("acc_000001", "tnt_000002", { name: "x", updatedAt: at(1) })).toBeNull();
		expect((await store.tenants.get("acc_000002", "tnt_000002"))?.name).toBe("Tenant tnt_000002");
	},
	"tenants - as2_id unique across the deployment, found by as2_id": async ({ store }) => {
		await twoAccounts(store);
		expect((await store.tenants.findByAs2Id("TNT_000002"))?.id).toBe("tnt_000002");
		expect(await store.tenants.findByAs2Id("tnt_000002")).toBeNull();
		await expectConflict(store.tenants.create(tenant("tnt_000003", "acc_000001", { as2Id: "TNT_000002", slug: "x" })));
	},
	"tenants - slug unique within an account only": async ({ store }) => {
		await twoAccounts(store);
		await store.tenants.create(tenant("tnt_000003", "acc_000002", { slug: "tnt_000001", as2Id: "OTHER" }));
		expect((await store.tenants.findBySlug("acc_000002", "tnt_000001"))?.id).toBe("tnt_000003");
		await expectConflict(store.tenants.create(tenant("tnt_000004", "acc_000001", { slug: "tnt_000001", as2Id: "X4" })));
	},
	"tenants - list pages oldest first, with total and id filter": async ({ store }) => {
		await store.accounts.create(account("acc_000001"));
		for (let i = 1; i <= 5; i++) {
			await store.tenants.create(tenant(`tnt_00000${i}`, "acc_000001", { createdAt: at(10 - i) }));
		}
		const first = await store.tenants.list("acc_000001", { page: 1, perPage: 2 });
		expect(first.total).toBe(5);
		expect(first.items.map((t) => t.id)).toEqual(["tnt_000005", "tnt_000004"]);
		const last = await store.tenants.list("acc_000001", { page: 3, perPage: 2 });
		expect(last.items.map((t) => t.id)).toEqual(["tnt_000001"]);
		const beyond = await store.tenants.list("acc_000001", { page: 4, perPage: 2 });
		expect(beyond).toEqual({ items: [], total: 5 });
		const some = await store.tenants.list(
			"acc_000001",
			{ page: 1, perPage: 10 },
			{ ids: ["tnt_000002", "tnt_000004"] },
		);
		expect(some.items.map((t) => t.id)).toEqual(["tnt_000004", "tnt_000002"]);
		expect((await store.tenants.list("acc_000002", { page: 1, perPage: 10 })).total).toBe(0);
	},
	"tenants - update changes only the given fields": async ({ store }) => {
		await twoAccounts(store);
		const updated = await store.tenants.update("acc_000001", "tnt_000001", { name: "Renamed", updatedAt: at(3) });
		expect(updated).toEqual({ ...tenant("tnt_000001", "acc_000001"), name: "Renamed", updatedAt: at(3) });
	},
} satisfies Record<string, ConformanceTest>;
