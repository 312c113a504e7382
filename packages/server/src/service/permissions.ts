/** Permissions of the interface spec (Authentication, item 8). */
export const ACCOUNT_PERMISSIONS = [
	"accounts:read",
	"accounts:write",
	"tenants:read",
	"tenants:write",
	"users:read",
	"users:write",
	"billing:read",
	"billing:write",
] as const;

export const TENANT_PERMISSIONS = [
	"messages:read",
	"messages:write",
	"partners:read",
	"partners:write",
	"certificates:read",
	"certificates:write",
	"webhooks:read",
	"webhooks:write",
] as const;

export type AccountPermission = (typeof ACCOUNT_PERMISSIONS)[number];
export type TenantPermission = (typeof TENANT_PERMISSIONS)[number];
export type Permission = "*" | AccountPermission | TenantPermission;

export const ALL_PERMISSIONS: readonly Permission[] = ["*", ...ACCOUNT_PERMISSIONS, ...TENANT_PERMISSIONS];

export function isAccountPermission(permission: string): permission is AccountPermission {
	return (ACCOUNT_PERMISSIONS as readonly string[]).includes(permission);
}

/**
 * Whether a key's permission list grants `needed`: `*` grants everything its scope allows,
 * and `x:write` includes `x:read` (what a write key can change, it may also see).
 */
export function grants(held: readonly string[], needed: Permission): boolean {
	if (held.includes("*") || held.includes(needed)) return true;
	return needed.endsWith(":read") && held.includes(needed.replace(/:read$/, ":write"));
}
