import type { AccountRecord, PlanName } from "@as2kit/core/store";
import { storageOf } from "./billing/storage-usage.ts";
import { billingPeriod } from "./billing/usage.ts";
import type { ServiceDeps } from "./deps.ts";
import { recordEvent } from "./events.ts";
import { planOf } from "./plans.ts";
import { type Principal, requirePermission, requireWholeAccount } from "./principal.ts";
import { notFound } from "./validation-error.ts";
import { accountView, planLimitsView } from "./views/account-views.ts";
import { formatInstant } from "./views/instant.ts";

export interface AccountPatch {
	name?: string | undefined;
	plan?: PlanName | undefined;
}

export function createAccountService(deps: ServiceDeps) {
	const { store, now, config, credentials } = deps;
	async function get(principal: Principal): Promise<AccountRecord> {
		requirePermission(principal, "accounts:read");
		return (await store.accounts.get(principal.accountId)) ?? Promise.reject(notFound("account"));
	}
	return {
		get,

		/**
		 * `GET /v1/account/usage`: this calendar month's counters (decisions.md, Usage and billing
		 * events) against the plan's allowance, and the storage kept (measured every 15 minutes).
		 */
		async usage(principal: Principal) {
			const account = await get(principal);
			const period = billingPeriod(now());
			const count = (metric: string) => store.usage.get({ accountId: account.id, period: period.key, metric });
			const [liveMessages, liveBytes, unsignedMessages, unsignedBytes, storage] = await Promise.all([
				count("live_messages"),
				count("live_bytes"),
				count("unsigned_received_messages"),
				count("unsigned_received_bytes"),
				storageOf(deps, account.id),
			]);
			return {
				account,
				plan: planOf(account.plan, config.enterpriseLimits),
				period: period.view,
				liveMessages,
				liveBytes,
				unsignedReceived: { messages: unsignedMessages, bytes: unsignedBytes },
				storage,
			};
		},

		/**
		 * `PATCH /v1/account`: `account.updated`, and for a plan change (which needs billing:write)
		 * `billing.subscription_updated` too; the reference server takes no payments, so the
		 * change is immediate. It changes what every tenant shares, so a key restricted to some
		 * tenants may not (README, Who may do what).
		 */
		async update(principal: Principal, patch: AccountPatch): Promise<AccountRecord> {
			requirePermission(principal, "accounts:write");
			requireWholeAccount(principal, "changing the account");
			if (patch.plan !== undefined) requirePermission(principal, "billing:write");
			// Authenticated principals carry the plan: a new one applies from the next request.
			return credentials.invalidateAfter(() =>
				store.transaction(async (tx) => {
					const previous = await tx.accounts.get(principal.accountId);
					if (!previous) throw notFound("account");
					const at = now();
					const account = (await tx.accounts.update(principal.accountId, { ...patch, updatedAt: at }))!;
					const common = { accountId: account.id, tenantId: null, environment: principal.environment };
					await recordEvent(tx, { ...common, kind: "account.updated", data: accountView(account) }, at);
					if (patch.plan !== undefined && patch.plan !== previous.plan) {
						await recordEvent(
							tx,
							{
								...common,
								kind: "billing.subscription_updated",
								data: {
									account_id: account.id,
									plan: account.plan,
									previous_plan: previous.plan,
									status: "active",
									limits: planLimitsView(planOf(account.plan, config.enterpriseLimits)),
									changed_at: formatInstant(at),
								},
							},
							at,
						);
					}
					return account;
				}),
			);
		},
	};
}
