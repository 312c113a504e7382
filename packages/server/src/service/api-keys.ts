import { As2Error } from "@as2kit/core";
import type { ApiKeyRecord, Environment, KeyScope } from "@as2kit/core/store";
import type { ServiceDeps } from "./deps.ts";
import { ALL_PERMISSIONS, isAccountPermission } from "./permissions.ts";
import { type Principal, requirePermission } from "./principal.ts";
import { generateToken, hashToken } from "./secrets/tokens.ts";
import { fieldError, notFound } from "./validation-error.ts";

/**
 * Both create forms of the spec, merged: `permissions` or `scopes` is the permission list;
 * `scope` defaults to `tenant` (the caller's current tenant) and `environment` to `test`
 * (decisions.md, Clarifications: API keys).
 */
export interface ApiKeyInput {
	name: string;
	scope?: KeyScope | undefined;
	tenantId?: string | undefined;
	environment?: Environment | undefined;
	permissions?: string[] | undefined;
	expiresAt?: Date | undefined;
	/** Account keys only: restrict the key to these tenants of the account. */
	allowedTenantIds?: string[] | undefined;
}

export function createApiKeyService({ store, now, tokenKey }: ServiceDeps) {
	return {
		async create(principal: Principal, input: ApiKeyInput): Promise<{ record: ApiKeyRecord; key: string }> {
			requirePermission(principal, "*");
			const at = now();
			const scope = input.scope ?? "tenant";
			const environment = input.environment ?? "test";
			const permissions = [...new Set(input.permissions ?? [])];
			if (permissions.length === 0) throw fieldError("permissions", "must list at least one permission");
			const unknown = permissions.filter((p) => !(ALL_PERMISSIONS as readonly string[]).includes(p));
			if (unknown.length > 0) throw fieldError("permissions", `has unknown permissions: ${unknown.join(", ")}`);
			if (scope === "tenant" && permissions.some(isAccountPermission)) {
				throw fieldError("permissions", "account permissions need scope account");
			}
			if (input.expiresAt && input.expiresAt <= at) throw fieldError("expires_at", "must be in the future");
			// A key can mint only keys that reach no further than itself; sessions (the owner) anything.
			if (principal.kind === "api_key") {
				if (principal.scope === "tenant" && scope === "account") {
					throw new As2Error("insufficient_scope", "a tenant key cannot create account keys");
				}
				if (principal.environment === "test" && environment === "live") {
					throw new As2Error("insufficient_scope", "a test key cannot create live keys");
				}
			}
			let tenantId: string | null = null;
			let allowedTenantIds: string[] | null = null;
			if (scope === "tenant") {
				tenantId = principal.scope === "tenant" ? principal.tenantId : (input.tenantId ?? principal.tenantId);
				if (principal.scope === "tenant" && input.tenantId && input.tenantId !== principal.tenantId) {
					throw fieldError("tenant_id", "must be the key's own tenant");
				}
				if (!(await store.tenants.get(principal.accountId, tenantId))) throw fieldError("tenant_id", "was not found");
				if (principal.allowedTenantIds && !principal.allowedTenantIds.includes(tenantId)) {
					throw fieldError("tenant_id", "is outside the tenants this key may use");
				}
			} else if (input.allowedTenantIds || principal.allowedTenantIds) {
				allowedTenantIds = [...new Set(input.allowedTenantIds ?? principal.allowedTenantIds ?? [])];
				for (const id of allowedTenantIds) {
					if (!(await store.tenants.get(principal.accountId, id)))
						throw fieldError("allowed_tenant_ids", `${id} was not found`);
					if (principal.allowedTenantIds && !principal.allowedTenantIds.includes(id)) {
						throw fieldError("allowed_tenant_ids", `${id} is outside the tenants this key may use`);
					}
				}
				if (allowedTenantIds.length === 0) throw fieldError("allowed_tenant_ids", "must name at least one tenant");
			}
			const keyPrefix = `${scope === "account" ? "pk" : "tk"}_${environment}_`;
			const key = generateToken(keyPrefix);
			const record: ApiKeyRecord = {
				id: await store.ids.next("key_"),
				accountId: principal.accountId,
				tenantId,
				userId: principal.userId,
				name: input.name,
				keyPrefix,
				keyHash: hashToken(tokenKey, key),
				keyLast4: key.slice(-4),
				scope,
				environment,
				permissions,
				allowedTenantIds,
				lastUsedAt: null,
				expiresAt: input.expiresAt ?? null,
				createdAt: at,
				revokedAt: null,
			};
			await store.apiKeys.create(record);
			return { record, key };
		},

		/** Keys the caller may see: the account's, or a tenant key's own tenant's. */
		async list(principal: Principal, page: { page: number; perPage: number }) {
			requirePermission(principal, "*");
			return store.apiKeys.list(
				principal.accountId,
				page,
				principal.scope === "tenant" ? { tenantId: principal.tenantId } : {},
			);
		},

		async revoke(principal: Principal, keyId: string): Promise<ApiKeyRecord> {
			requirePermission(principal, "*");
			const key = await store.apiKeys.get(principal.accountId, keyId);
			const visible = key && !key.revokedAt && (principal.scope === "account" || key.tenantId === principal.tenantId);
			if (!visible) throw notFound("API key");
			return (await store.apiKeys.revoke(principal.accountId, keyId, now())) ?? Promise.reject(notFound("API key"));
		},
	};
}
