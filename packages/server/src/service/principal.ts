import { As2Error } from "@as2kit/core";
import type { Environment, KeyScope, PlanName } from "@as2kit/core/store";
import { grants, isAccountPermission, type Permission } from "./permissions.ts";

/** Who is calling, after authentication and tenant resolution. */
export interface Principal {
	kind: "api_key" | "session";
	/** `key_…` or `ses_…`. */
	credentialId: string;
	accountId: string;
	plan: PlanName;
	userId: string | null;
	scope: KeyScope;
	environment: Environment;
	permissions: readonly string[];
	/** Account keys restricted to some tenants; null means every tenant of the account. */
	allowedTenantIds: readonly string[] | null;
	/** The tenant this request works in (X-Tenant-ID, the key's tenant, or the first tenant). */
	tenantId: string;
}

/**
 * Refuses with 403 insufficient_scope unless the principal holds `permission`; account-level
 * permissions also need an account-scoped key (interface spec, Authentication 5–9).
 */
export function requirePermission(principal: Principal, permission: Permission): void {
	if (isAccountPermission(permission) && principal.scope !== "account") {
		throw new As2Error("insufficient_scope", `${permission} needs an account-scoped key`, {
			details: { required_permission: permission },
		});
	}
	if (!grants(principal.permissions, permission)) {
		throw new As2Error("insufficient_scope", `this key lacks the ${permission} permission`, {
			details: { required_permission: permission },
		});
	}
}

/** Whether the principal may act in `tenantId` (account keys may be restricted). */
export function mayUseTenant(principal: Principal, tenantId: string): boolean {
	if (principal.scope === "tenant") return principal.tenantId === tenantId;
	return principal.allowedTenantIds === null || principal.allowedTenantIds.includes(tenantId);
}
