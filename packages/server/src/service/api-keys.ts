import { As2Error } from "@as2kit/core";
import type { ApiKeyListFilter, ApiKeyRecord, As2Store, Environment, KeyScope } from "@as2kit/core/store";
import type { ServiceDeps } from "./deps.ts";
import { ALL_PERMISSIONS, isAccountPermission } from "./permissions.ts";
import { mayUseTenant, type Principal, reachesWholeAccount, requirePermission } from "./principal.ts";
import { generateToken, hashToken } from "./secrets/tokens.ts";
import { notFound } from "./validation-error.ts";

/**
 * Both create forms of the spec, merged: `permissions` or `scopes` is the permission list.
 * An omitted `scope` means a tenant key for the caller's current tenant and an omitted
 * `environment` a test key (decisions.md, Clarifications: API keys); a `scope` of `tenant`
 * given explicitly needs `tenant_id` (interface spec, API key: "required when scope is tenant").
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

/**
 * API keys. Managing them needs `*`; a credential creates only keys that reach no further
 * than itself, and sees and revokes exactly the keys within its reach (README, Who may do what).
 */
export function createApiKeyService({ store, now, tokenKey, credentials }: ServiceDeps) {
	return {
		async create(principal: Principal, input: ApiKeyInput): Promise<{ record: ApiKeyRecord; key: string }> {
			requirePermission(principal, "*");
			const at = now();
			const scope = input.scope ?? "tenant";
			const environment = input.environment ?? "test";
			const expiresAt = input.expiresAt ?? principal.expiresAt;
			refuseEscalation(principal, { scope, environment, expiresAt });
			const permissions = [...new Set(input.permissions ?? [])];
			const target = await validateTarget(store, principal, { ...input, permissions }, at);
			const keyPrefix = `${scope === "account" ? "pk" : "tk"}_${environment}_`;
			const key = generateToken(keyPrefix);
			const record: ApiKeyRecord = {
				id: await store.ids.next("key_"),
				accountId: principal.accountId,
				tenantId: target.tenantId,
				userId: principal.userId,
				name: input.name,
				keyPrefix,
				keyHash: hashToken(tokenKey, key),
				keyLast4: key.slice(-4),
				scope,
				environment,
				permissions,
				allowedTenantIds: target.allowedTenantIds,
				lastUsedAt: null,
				expiresAt,
				createdAt: at,
				revokedAt: null,
			};
			await store.apiKeys.create(record);
			return { record, key };
		},

		/**
		 * The reach a create asks for, refused (403) before anything is validated (README, Who
		 * may do what): `requested` is the body as sent, and values that are not valid yet
		 * (validation will name them) ask for nothing.
		 */
		authorizeCreate(principal: Principal, requested: { scope?: unknown; environment?: unknown; expires_at?: unknown }) {
			requirePermission(principal, "*");
			const expiresAt = typeof requested.expires_at === "string" ? new Date(requested.expires_at) : null;
			refuseEscalation(principal, {
				scope: requested.scope === "account" ? "account" : "tenant",
				environment: requested.environment === "live" ? "live" : "test",
				expiresAt: expiresAt && !Number.isNaN(expiresAt.getTime()) ? expiresAt : principal.expiresAt,
			});
		},

		/**
		 * The checks of a create on the fields that passed the HTTP layer's schema, all at once:
		 * `failed` names the others (wire names), whose checks, and those that depend on them,
		 * are left out, so that one 422 names every field at fault (issue #16, defect 9).
		 */
		async checkInput(principal: Principal, input: ApiKeyInput, failed: ReadonlySet<string>): Promise<void> {
			await validateTarget(store, principal, input, now(), failed);
		},

		async list(principal: Principal, page: { page: number; perPage: number }) {
			requirePermission(principal, "*");
			return store.apiKeys.list(principal.accountId, page, keysWithinReach(principal));
		},

		async revoke(principal: Principal, keyId: string): Promise<ApiKeyRecord> {
			requirePermission(principal, "*");
			const key = await store.apiKeys.get(principal.accountId, keyId);
			if (!key || key.revokedAt || !matches(keysWithinReach(principal), key)) throw notFound("API key");
			// Immediate on this instance; on others within CREDENTIAL_CACHE_TTL_MS.
			const revoked = await credentials.invalidateAfter(() => store.apiKeys.revoke(principal.accountId, keyId, now()));
			return revoked ?? Promise.reject(notFound("API key"));
		},
	};
}

/**
 * 403 insufficient_scope for a key that would reach further than its creator: into the live
 * environment from a test key, beyond one tenant from a tenant key or a key restricted to
 * some tenants, or past the creator's own expiry. A session of an owner or admin is the
 * account's own authority and may create any key.
 */
function refuseEscalation(
	principal: Principal,
	wanted: { scope: KeyScope; environment: Environment; expiresAt: Date | null },
): void {
	if (principal.kind === "session" && reachesWholeAccount(principal)) return;
	const refuse = (message: string) => {
		throw new As2Error("insufficient_scope", message);
	};
	if (principal.environment === "test" && wanted.environment === "live") refuse("a test key cannot create live keys");
	if (wanted.scope === "account" && !reachesWholeAccount(principal)) {
		refuse("only a key for the whole account can create account keys; this one can create tenant keys");
	}
	if (principal.expiresAt && (!wanted.expiresAt || wanted.expiresAt > principal.expiresAt)) {
		refuse("a key cannot create a key that outlives it");
	}
}

/**
 * The new key's tenant or tenant restriction, its permissions and its expiry, checked
 * together so a 422 names every field at fault. A tenant the caller does not reach answers as
 * a missing one. Fields in `skip` (refused by the HTTP layer's schema) go unchecked, and so
 * does what depends on them: without a valid `scope`, which tenant fields apply is unknown.
 */
async function validateTarget(
	store: As2Store,
	principal: Principal,
	input: ApiKeyInput,
	at: Date,
	skip: ReadonlySet<string> = new Set(),
): Promise<{ tenantId: string | null; allowedTenantIds: string[] | null }> {
	const errors: Record<string, string[]> = {};
	const fail = (field: string, message: string) => {
		errors[field] = [...(errors[field] ?? []), message];
	};
	const reachable = async (tenantId: string) =>
		mayUseTenant(principal, tenantId) && (await store.tenants.get(principal.accountId, tenantId)) !== null;
	const scope = input.scope ?? "tenant";
	const scopeKnown = !skip.has("scope");

	if (!skip.has("permissions") && !skip.has("scopes")) {
		const permissions = input.permissions ?? [];
		if (permissions.length === 0) fail("permissions", "must list at least one permission");
		const unknown = permissions.filter((p) => !(ALL_PERMISSIONS as readonly string[]).includes(p));
		if (unknown.length > 0) fail("permissions", `has unknown permissions: ${unknown.join(", ")}`);
		if (scopeKnown && scope === "tenant" && permissions.some(isAccountPermission)) {
			fail("permissions", "account permissions need scope account");
		}
	}
	if (input.expiresAt && input.expiresAt <= at) fail("expires_at", "must be in the future");

	let tenantId: string | null = null;
	let allowedTenantIds: string[] | null = null;
	const tenantIdKnown = !skip.has("tenant_id");
	const allowedKnown = !skip.has("allowed_tenant_ids");
	if (!scopeKnown) {
		// Which of tenant_id and allowed_tenant_ids applies is unknown: check only what they name.
		if (tenantIdKnown && input.tenantId !== undefined && !(await reachable(input.tenantId))) {
			fail("tenant_id", "was not found");
		}
	} else if (scope === "tenant") {
		if (allowedKnown && input.allowedTenantIds) fail("allowed_tenant_ids", "applies to account keys only");
		if (tenantIdKnown && input.scope === "tenant" && input.tenantId === undefined) {
			fail("tenant_id", "is required when scope is tenant");
		} else if (tenantIdKnown) {
			tenantId = input.tenantId ?? principal.tenantId;
			if (!(await reachable(tenantId))) fail("tenant_id", "was not found");
		}
	} else {
		if (tenantIdKnown && input.tenantId !== undefined) fail("tenant_id", "applies to tenant keys only");
		if (allowedKnown && input.allowedTenantIds) {
			allowedTenantIds = [...new Set(input.allowedTenantIds)];
			if (allowedTenantIds.length === 0) fail("allowed_tenant_ids", "must name at least one tenant");
			for (const id of allowedTenantIds) if (!(await reachable(id))) fail("allowed_tenant_ids", `${id} was not found`);
		}
	}
	const first = Object.entries(errors)[0];
	if (first) throw new As2Error("VALIDATION_FAILED", `${first[0]} ${first[1][0]}`, { fieldErrors: errors });
	return { tenantId, allowedTenantIds };
}

/**
 * The keys a credential sees and revokes: those it could have created. An owner's or admin's
 * session: all; a key for the whole account: all of its environment and below; any other
 * key: the tenant keys of the tenants it reaches (a test key: their test keys).
 */
function keysWithinReach(principal: Principal): ApiKeyListFilter {
	if (principal.kind === "session" && reachesWholeAccount(principal)) return {};
	const environment = principal.environment === "test" ? { environment: "test" as const } : {};
	if (reachesWholeAccount(principal)) return environment;
	const tenantIds = principal.scope === "tenant" ? [principal.tenantId] : (principal.allowedTenantIds ?? []);
	return { ...environment, tenantIds };
}

function matches(filter: ApiKeyListFilter, key: ApiKeyRecord): boolean {
	if (filter.environment && key.environment !== filter.environment) return false;
	return !filter.tenantIds || (key.tenantId !== null && filter.tenantIds.includes(key.tenantId));
}
