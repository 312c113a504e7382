import { As2Error } from "@as2kit/core";
import type { As2Store, WebhookEndpointRecord } from "@as2kit/core/store";
import { grants, type Permission } from "../permissions.ts";
import { type Principal, reachesWholeAccount } from "../principal.ts";
import { ACCOUNT_LEVEL_CATEGORIES, categoryOf } from "./event-kinds.ts";
import { matchesEvent } from "./event-patterns.ts";

/**
 * Account-level events (`account.*`, `tenant.*`, `billing.*`) tell about every tenant of the
 * account: their names, AS2 ids, the plan, the usage. They go to the endpoints of the
 * account's first tenant (decisions.md, Clarifications), and there only to endpoints whose
 * events a credential reaching the whole account set (`accountEvents`), so that a tenant key
 * of that tenant, or an account key restricted to it, learns nothing beyond its grant
 * (issue #16, defect 3; README, Webhooks).
 */

/**
 * What each account-level category tells, as the permission that reads it through the API: a
 * subscription must not tell a credential what `GET /v1/tenants` or `GET /v1/account` would
 * refuse it.
 */
const READ_PERMISSION_OF: Readonly<Record<string, Permission>> = {
	account: "accounts:read",
	tenant: "tenants:read",
	billing: "billing:read",
};

/** The read permissions a principal lacks for the account-level categories `patterns` cover. */
function missingReads(principal: Principal, patterns: readonly string[]): Permission[] {
	const categories = patterns.includes("*") ? ACCOUNT_LEVEL_CATEGORIES : patterns.map(categoryOf);
	const needed = [
		...new Set(categories.map((category) => READ_PERMISSION_OF[category]).filter(Boolean)),
	] as Permission[];
	return needed.filter((permission) => !grants(principal.permissions, permission));
}

export function isAccountLevelKind(kind: string): boolean {
	return ACCOUNT_LEVEL_CATEGORIES.includes(categoryOf(kind));
}

/** The subscriptions that name account-level events explicitly: `tenant.*`, `billing.usage_threshold`, … (not `*`). */
export function accountLevelSubscriptions(events: readonly string[]): string[] {
	return events.filter((pattern) => pattern !== "*" && isAccountLevelKind(pattern));
}

/** Whether the endpoint receives `kind`: subscribed to it, and for an account-level kind also flagged for them. */
export function receivesEvent(endpoint: WebhookEndpointRecord, kind: string): boolean {
	return matchesEvent(endpoint.events, kind) && (endpoint.accountEvents || !isAccountLevelKind(kind));
}

/** The account's first tenant, which receives its account-level events; null for an account without tenants. */
export async function firstTenantId(store: As2Store, accountId: string): Promise<string | null> {
	return (await store.tenants.list(accountId, { page: 1, perPage: 1 })).items[0]?.id ?? null;
}

/**
 * 403 insufficient_scope when a credential that does not reach the whole account names
 * account-level events in a subscription. Its `*` and `<category>.*` are accepted: they just
 * do not cover those kinds.
 */
export function refuseAccountLevelSubscriptions(principal: Principal, events: readonly string[]): void {
	const named = accountLevelSubscriptions(events);
	if (named.length === 0) return;
	if (!reachesWholeAccount(principal)) {
		throw new As2Error(
			"insufficient_scope",
			`${named.join(", ")}: account-level events (account.*, tenant.*, billing.*) tell about every tenant of the account; subscribing to them needs an owner's or admin's session or an account key not restricted to some tenants`,
			{ details: { required_reach: "whole-account", events: named } },
		);
	}
	const missing = missingReads(principal, named);
	if (missing.length > 0) {
		throw new As2Error(
			"insufficient_scope",
			`${named.join(", ")}: subscribing to these events needs the permission to read what they tell: ${missing.join(", ")}`,
			{ details: { required_permissions: missing, events: named } },
		);
	}
}

/**
 * 403 insufficient_scope when a credential that does not reach the whole account would change
 * or delete an endpoint that receives the account's events: repointing its URL would carry
 * them to the caller.
 */
export function refuseChangingAccountEndpoint(principal: Principal, endpoint: WebhookEndpointRecord): void {
	if (!endpoint.accountEvents || reachesWholeAccount(principal)) return;
	throw new As2Error(
		"insufficient_scope",
		"this endpoint receives the account's events (account_events: true); changing or deleting it needs an owner's or admin's session or an account key not restricted to some tenants",
		{ details: { required_reach: "whole-account" } },
	);
}

/**
 * Whether an endpoint whose events a principal sets receives the account-level events they
 * cover: the principal reaches the whole account and may read what they tell (accounts:read,
 * tenants:read, billing:read for the categories covered: all three for `*`), the events cover
 * an account-level kind (`*` does), and the endpoint is in the account's first tenant, the one
 * they go to.
 */
export async function receivesAccountEvents(
	store: As2Store,
	principal: Principal,
	tenantId: string,
	events: readonly string[],
): Promise<boolean> {
	if (!reachesWholeAccount(principal)) return false;
	const covering = events.filter((pattern) => pattern === "*" || isAccountLevelKind(pattern));
	// A `*` of a credential that may not read everything account-level events tell covers none of them.
	if (covering.length === 0 || missingReads(principal, covering).length > 0) return false;
	return (await firstTenantId(store, principal.accountId)) === tenantId;
}
