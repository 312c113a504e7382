/**
 * The records the storage port stores: camelCase, plain data, `Date` for instants. No SQL
 * or row type crosses the port (DESIGN.md rule 4); adapters map rows to these in their own
 * mappers. JSON-valued fields hold plain JSON data only.
 */

export type Environment = "test" | "live";
export type PlanName = "free" | "starter" | "professional" | "enterprise";
export type MemberRole = "owner" | "admin" | "member";
export type KeyScope = "account" | "tenant";

/** A JSON value as stored in a JSON column. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface AccountRecord {
	id: string;
	name: string;
	slug: string;
	plan: PlanName;
	status: "active" | "suspended";
	createdAt: Date;
	updatedAt: Date;
}

export interface UserRecord {
	id: string;
	name: string;
	/** Lowercased; unique across the deployment. */
	email: string;
	/** `scrypt$N$r$p$salt$hash`, never the password. */
	passwordHash: string;
	createdAt: Date;
	updatedAt: Date;
}

export interface MembershipRecord {
	accountId: string;
	userId: string;
	role: MemberRole;
	createdAt: Date;
}

export interface SessionRecord {
	id: string;
	userId: string;
	accountId: string;
	/** Keyed hash (HMAC-SHA-256 under the server secret) of the bearer token. */
	tokenHash: string;
	createdAt: Date;
	expiresAt: Date;
	lastUsedAt: Date | null;
	revokedAt: Date | null;
}

export interface TenantRecord {
	id: string;
	accountId: string;
	name: string;
	slug: string;
	/** The tenant's AS2 identity towards partners, unique across the deployment. */
	as2Id: string;
	status: "active" | "suspended";
	createdAt: Date;
	updatedAt: Date;
}

export interface ApiKeyRecord {
	id: string;
	accountId: string;
	/** The tenant of a tenant-scoped key; null for account-scoped keys. */
	tenantId: string | null;
	/** The user on whose behalf the key was made (`/auth/me` answers with this user). */
	userId: string | null;
	name: string;
	/** `pk_test_`, `pk_live_`, `tk_test_` or `tk_live_`. */
	keyPrefix: string;
	/** Keyed hash of the full key; the key itself is never stored. */
	keyHash: string;
	/** The last four characters, so owners can tell keys apart. */
	keyLast4: string;
	scope: KeyScope;
	environment: Environment;
	permissions: string[];
	/** Account-scoped keys may be restricted to these tenants; null means all. */
	allowedTenantIds: string[] | null;
	lastUsedAt: Date | null;
	expiresAt: Date | null;
	createdAt: Date;
	revokedAt: Date | null;
}

/** One entry of the events outbox, written in the transaction of the change it reports. */
export interface EventRecord {
	id: string;
	accountId: string;
	/** The tenant the event concerns; account-level events carry null. */
	tenantId: string | null;
	kind: string;
	data: { [key: string]: Json };
	environment: Environment;
	createdAt: Date;
}

export interface IdempotencyRecord {
	/** `tnt_…`: keys are scoped per tenant. */
	scope: string;
	key: string;
	/** Hash of method, path and body: a reused key with another request is refused. */
	fingerprint: string;
	state: "pending" | "completed";
	responseStatus: number | null;
	responseBody: string | null;
	createdAt: Date;
	/** A pending record whose owner died is taken over after this instant. */
	lockedUntil: Date | null;
	expiresAt: Date;
}
