import { expect } from "vitest";
import { expectConflict } from "./expect-conflict.ts";
import { apiKey, at, tenant, twoAccounts } from "./fixtures.ts";
import type { ConformanceTest } from "./types.ts";

export const apiKeyTests = {
	"api keys - found by hash with every field intact": async ({ store }) => {
		const key = apiKey("key_000001", "acc_000001", {
			tenantId: "tnt_000001",
			scope: "tenant",
			keyPrefix: "tk_live_",
			environment: "live",
			permissions: ["messages:read", "partners:write"],
			allowedTenantIds: ["tnt_000001"],
			expiresAt: at(100),
		});
		await store.apiKeys.create(key);
		expect(await store.apiKeys.findByHash("hash-key_000001")).toEqual(key);
		expect(await store.apiKeys.findByHash("nope")).toBeNull();
		await expectConflict(store.apiKeys.create({ ...key, id: "key_000002" }));
	},
	"api keys - listed per account newest first, revoked ones hidden": async ({ store }) => {
		await twoAccounts(store);
		await store.apiKeys.create(apiKey("key_000001", "acc_000001", { createdAt: at(1) }));
		await store.apiKeys.create(apiKey("key_000002", "acc_000001", { createdAt: at(2), tenantId: "tnt_000001" }));
		await store.apiKeys.create(apiKey("key_000003", "acc_000002", { createdAt: at(3) }));
		const page = await store.apiKeys.list("acc_000001", { page: 1, perPage: 10 });
		expect(page.items.map((k) => k.id)).toEqual(["key_000002", "key_000001"]);
		expect(page.total).toBe(2);
		const tenantOnly = await store.apiKeys.list("acc_000001", { page: 1, perPage: 10 }, { tenantIds: ["tnt_000001"] });
		expect(tenantOnly.items.map((k) => k.id)).toEqual(["key_000002"]);
		expect(await store.apiKeys.revoke("acc_000002", "key_000001", at(5))).toBeNull();
		expect((await store.apiKeys.revoke("acc_000001", "key_000001", at(5)))?.revokedAt).toEqual(at(5));
		expect(await store.apiKeys.revoke("acc_000001", "key_000001", at(6))).toBeNull();
		expect((await store.apiKeys.list("acc_000001", { page: 1, perPage: 10 })).total).toBe(1);
		expect((await store.apiKeys.get("acc_000001", "key_000001"))?.revokedAt).toEqual(at(5));
		expect(await store.apiKeys.get("acc_000002", "key_000001")).toBeNull();
	},
	"api keys - listed narrowed to tenant keys of some tenants and to one environment": async ({ store }) => {
		await twoAccounts(store);
		await store.tenants.create(tenant("tnt_000003", "acc_000001"));
		await store.tenants.create(tenant("tnt_000004", "acc_000001"));
		const key = (id: string, overrides: Parameters<typeof apiKey>[2]) =>
			store.apiKeys.create(apiKey(id, "acc_000001", overrides));
		await key("key_000001", { createdAt: at(1), environment: "live" });
		await key("key_000002", { createdAt: at(2), tenantId: "tnt_000001", scope: "tenant", environment: "test" });
		await key("key_000003", { createdAt: at(3), tenantId: "tnt_000001", scope: "tenant", environment: "live" });
		await key("key_000004", { createdAt: at(4), tenantId: "tnt_000003", scope: "tenant", environment: "live" });
		await key("key_000005", { createdAt: at(5), tenantId: "tnt_000004", scope: "tenant", environment: "live" });
		const ids = async (filter: Parameters<typeof store.apiKeys.list>[2]) =>
			(await store.apiKeys.list("acc_000001", { page: 1, perPage: 10 }, filter)).items.map((k) => k.id);
		expect(await ids({ tenantIds: ["tnt_000001", "tnt_000003"] })).toEqual(["key_000004", "key_000003", "key_000002"]);
		expect(await ids({ tenantIds: [] })).toEqual([]);
		expect(await ids({ environment: "live" })).toEqual(["key_000005", "key_000004", "key_000003", "key_000001"]);
		expect(await ids({ tenantIds: ["tnt_000001"], environment: "live" })).toEqual(["key_000003"]);
		const page = await store.apiKeys.list("acc_000001", { page: 2, perPage: 1 }, { tenantIds: ["tnt_000001"] });
		expect(page.items.map((k) => k.id)).toEqual(["key_000002"]);
		expect(page.total).toBe(2);
	},
	"api keys - touch records last use": async ({ store }) => {
		await store.apiKeys.create(apiKey("key_000001", "acc_000001"));
		await store.apiKeys.touch("key_000001", at(42));
		expect((await store.apiKeys.get("acc_000001", "key_000001"))?.lastUsedAt).toEqual(at(42));
	},
} satisfies Record<string, ConformanceTest>;
