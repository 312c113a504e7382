import { As2Error } from "@as2kit/core";
import type { As2Store, PlanName } from "@as2kit/core/store";
import type { ServiceConfig } from "../config.ts";
import { planOf } from "../plans.ts";

/**
 * The plan's partner limit (interface spec, Limits): counted per account, tenant partners and
 * master partners together; 402 PARTNER_LIMIT_EXCEEDED with the spec's details.
 */
export async function checkPartnerLimit(
	tx: As2Store,
	accountId: string,
	planName: PlanName,
	config: ServiceConfig,
): Promise<void> {
	const plan = planOf(planName, config.enterpriseLimits);
	if (plan.partners === null) return;
	const current = await tx.partners.countForAccount(accountId);
	if (current >= plan.partners) {
		throw new As2Error("PARTNER_LIMIT_EXCEEDED", `the ${plan.name} plan allows ${plan.partners} partners`, {
			details: {
				current_partners: current,
				plan_limit: plan.partners,
				plan: plan.name,
				upgrade_url: `${config.publicUrl ?? ""}/v1/account`,
			},
		});
	}
}
