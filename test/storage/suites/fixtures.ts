import type { AccountRecord, ApiKeyRecord, As2Store, TenantRecord } from "@as2kit/core/store";

export const T0 = new Date("2026-01-01T00:00:00.000Z");
export const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);

export function account(id: string, overrides: Partial<AccountRecord> = {}): AccountRecord {
	return {
		id,
		name: `Account ${id}`,
		slug: id,
		plan: "free",
		status: "active",
		createdAt: T0,
		updatedAt: T0,
		...overrides,
	};
}

export function tenant(id: string, accountId: string, overrides: Partial<TenantRecord> = {}): TenantRecord {
	return {
		id,
		accountId,
		name: `Tenant ${id}`,
		slug: id,
		as2Id: id.toUpperCase(),
		status: "active",
		createdAt: T0,
		updatedAt: T0,
		...overrides,
	};
}

export function apiKey(id: string, accountId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
	return {
		id,
		accountId,
		tenantId: null,
		userId: "usr_000001",
		name: `Key ${id}`,
		keyPrefix: "pk_test_",
		keyHash: `hash-${id}`,
		keyLast4: "abcd",
		scope: "account",
		environment: "test",
		permissions: ["*"],
		allowedTenantIds: null,
		lastUsedAt: null,
		expiresAt: null,
		createdAt: T0,
		revokedAt: null,
		...overrides,
	};
}

/** Two accounts with one tenant each: the isolation tests' world. */
export async function twoAccounts(store: As2Store): Promise<void> {
	await store.accounts.create(account("acc_000001"));
	await store.accounts.create(account("acc_000002"));
	await store.tenants.create(tenant("tnt_000001", "acc_000001"));
	await store.tenants.create(tenant("tnt_000002", "acc_000002"));
}
