import { As2Error } from "@as2kit/core";
import type { AccountRecord, ApiKeyRecord, As2Store } from "@as2kit/core/store";
import { SESSION_TOKEN_PREFIX } from "./auth.ts";
import type { ServiceDeps } from "./deps.ts";
import { type Permission, TENANT_PERMISSIONS } from "./permissions.ts";
import type { Principal } from "./principal.ts";
import { hashToken } from "./secrets/tokens.ts";
import { notFound } from "./validation-error.ts";

/** `last_used_at` is written at most this often per key, not on every request. */
const TOUCH_INTERVAL_MS = 60_000;

/** A member's session: every tenant-level permission, and reading the account and its tenants. */
const MEMBER_PERMISSIONS: readonly Permission[] = [...TENANT_PERMISSIONS, "accounts:read", "tenants:read"];

export const API_KEY_PATTERN = /^(pk|tk)_(test|live)_[0-9A-Za-z]+$/;

/**
 * Turns a bearer credential (API key or session token) and an optional X-Tenant-ID into a
 * principal, or refuses: 401 invalid_api_key (unknown, revoked, malformed), 401
 * expired_api_key (past expires_at), 404 for an X-Tenant-ID the credential does not reach (outside
 * the account, or outside a key's tenant restriction: as for a missing tenant, decisions.md Errors).
 */
export function createAuthenticator({ store, now, tokenKey, credentials }: ServiceDeps) {
	/** `last_used_at` of a remembered key is kept on its record, so it is written as often as before. */
	const touchIfDue = async (key: ApiKeyRecord, at: Date) => {
		if (key.lastUsedAt && at.getTime() - key.lastUsedAt.getTime() <= TOUCH_INTERVAL_MS) return;
		key.lastUsedAt = at;
		await store.apiKeys.touch(key.id, at);
	};
	return async function authenticate(token: string, tenantHeader: string | null): Promise<Principal> {
		const at = now();
		const tokenHash = hashToken(tokenKey, token);
		if (token.startsWith(SESSION_TOKEN_PREFIX)) {
			const session = await store.sessions.findByTokenHash(tokenHash);
			if (!session || session.revokedAt) throw new As2Error("invalid_api_key", "unknown or revoked session token");
			if (session.expiresAt <= at) throw new As2Error("expired_api_key", "the session has expired; log in again");
			const account = await activeAccount(store, session.accountId);
			const membership = await store.memberships.get(account.id, session.userId);
			if (!membership) throw new As2Error("invalid_api_key", "the session's user is no longer a member of the account");
			if (!session.lastUsedAt || at.getTime() - session.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
				await store.sessions.touch(session.id, at);
			}
			// decisions.md: a session acts as an account-scoped key with `*` in the test environment;
			// a member (not owner or admin) holds only what a tenant's work needs (README, Who may do what).
			const base = {
				kind: "session" as const,
				credentialId: session.id,
				accountId: account.id,
				plan: account.plan,
				userId: session.userId,
				role: membership.role,
				scope: "account" as const,
				environment: "test" as const,
				permissions: membership.role === "member" ? MEMBER_PERMISSIONS : ["*"],
				allowedTenantIds: null,
				expiresAt: null,
			};
			return { ...base, tenantId: await resolveTenant(store, base, null, tenantHeader) };
		}
		if (!API_KEY_PATTERN.test(token)) throw new As2Error("invalid_api_key", "malformed API key");
		const cacheKey = `${tokenHash}\n${tenantHeader ?? ""}`;
		const remembered = credentials.get(cacheKey);
		if (remembered) {
			if (remembered.key.expiresAt && remembered.key.expiresAt <= at)
				throw new As2Error("expired_api_key", "the API key has expired");
			await touchIfDue(remembered.key, at);
			return { ...remembered.principal };
		}
		const started = credentials.begin();
		const key = await store.apiKeys.findByHash(tokenHash);
		if (!key || key.revokedAt) throw new As2Error("invalid_api_key", "unknown or revoked API key");
		if (key.expiresAt && key.expiresAt <= at) throw new As2Error("expired_api_key", "the API key has expired");
		const account = await activeAccount(store, key.accountId);
		await touchIfDue(key, at);
		const base = {
			kind: "api_key" as const,
			credentialId: key.id,
			accountId: account.id,
			plan: account.plan,
			userId: key.userId,
			role: null,
			scope: key.scope,
			environment: key.environment,
			permissions: key.permissions,
			allowedTenantIds: key.scope === "account" ? key.allowedTenantIds : null,
			expiresAt: key.expiresAt,
		};
		const principal = { ...base, tenantId: await resolveTenant(store, base, key.tenantId, tenantHeader) };
		credentials.put(cacheKey, started, key, principal);
		return { ...principal };
	};
}

async function activeAccount(store: As2Store, accountId: string): Promise<AccountRecord> {
	const account = await store.accounts.get(accountId);
	if (!account) throw new As2Error("invalid_api_key", "the credential's account no longer exists");
	if (account.status !== "active") throw new As2Error("insufficient_scope", "the account is suspended");
	return account;
}

/** Tenant keys keep their tenant (X-Tenant-ID ignored); account keys switch with it. */
async function resolveTenant(
	store: As2Store,
	principal: Pick<Principal, "accountId" | "scope" | "allowedTenantIds">,
	keyTenantId: string | null,
	tenantHeader: string | null,
): Promise<string> {
	if (principal.scope === "tenant" && keyTenantId) return keyTenantId;
	const allowed = principal.allowedTenantIds;
	if (tenantHeader) {
		const tenant = await store.tenants.get(principal.accountId, tenantHeader);
		if (!tenant || (allowed && !allowed.includes(tenant.id))) throw notFound("tenant");
		return tenant.id;
	}
	const first = await store.tenants.list(principal.accountId, { page: 1, perPage: 1 }, allowed ? { ids: allowed } : {});
	const tenant = first.items[0];
	if (!tenant) throw new As2Error("insufficient_scope", "no tenant is reachable with this key");
	return tenant.id;
}
