import { As2Error } from "@as2kit/core";
import type { Environment, KeyScope, MemberRole, PlanName } from "@as2kit/core/store";
import { grants, isAccountPermission, type Permission } from "./permissions.ts";

/** Who is calling, after authentication and tenant resolution. */
export interface Principal {
	kind: "api_key" | "session";
	/** `key_…` or `ses_…`. */
	credentialId: string;
	accountId: string;
	plan: PlanName;
	userId: string | null;
	/** The user's role in the account for a session; null for an API key. */
	role: MemberRole | null;
	scope: KeyScope;
	environment: Environment;
	permissions: readonly string[];
	/** Account keys restricted to some tenants; null means every tenant of the account. */
	allowedTenantIds: readonly string[] | null;
	/** The key's expiry; null for keys without one and for sessions. */
	expiresAt: Date | null;
	/** The tenant this request works in (X-Tenant-ID, the key's tenant, or the first tenant). */
	tenantId: string;
}

/**
 * Which credentials an operation admits, beyond its permission (README, "Who may do what"):
 * - `tenant`: any credential, in the tenant it works in;
 * - `account`: account-scoped credentials (sessions, account keys, restricted ones too);
 * - `whole-account`: credentials that reach every tenant — a session of an owner or admin, or
 *   an account key without a tenant restriction. What every tenant shares (the account, new
 *   tenants, master partners and their certificates) changes only with one of these.
 */
export type Reach = "tenant" | "account" | "whole-account";

/** What an operation needs: a permission (null: any valid credential) and a reach. */
export interface AccessRule {
	permission: Permission | null;
	reach: Reach;
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

/** Whether the principal reaches every tenant of its account, those created later too. */
export function reachesWholeAccount(principal: Principal): boolean {
	if (principal.scope !== "account" || principal.allowedTenantIds !== null) return false;
	return principal.kind === "api_key" || principal.role === "owner" || principal.role === "admin";
}

/** Refuses with 403 insufficient_scope unless the principal may change what every tenant shares. */
export function requireWholeAccount(principal: Principal, what: string): void {
	if (!reachesWholeAccount(principal)) {
		throw new As2Error(
			"insufficient_scope",
			`${what} needs an owner's or admin's session or an account key not restricted to some tenants`,
			{ details: { required_reach: "whole-account" } },
		);
	}
}

/** Enforces an operation's access rule: its permission, then its reach. */
export function authorize(principal: Principal, rule: AccessRule): void {
	if (rule.reach !== "tenant" && principal.scope !== "account") {
		throw new As2Error("insufficient_scope", "this operation needs an account-scoped key", {
			details: { required_reach: rule.reach, ...(rule.permission ? { required_permission: rule.permission } : {}) },
		});
	}
	if (rule.permission) requirePermission(principal, rule.permission);
	if (rule.reach === "whole-account") requireWholeAccount(principal, "this operation");
}

/** Whether the principal may act in `tenantId` (account keys may be restricted). */
export function mayUseTenant(principal: Principal, tenantId: string): boolean {
	if (principal.scope === "tenant") return principal.tenantId === tenantId;
	return principal.allowedTenantIds === null || principal.allowedTenantIds.includes(tenantId);
}
