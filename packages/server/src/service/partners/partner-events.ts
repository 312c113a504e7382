import type { As2Store, Environment } from "@as2kit/core/store";
import { recordEvent } from "../events.ts";
import { partnerCreatedView, partnerView } from "../views/partner-views.ts";
import type { EffectivePartner } from "./effective-partner.ts";

/**
 * partner.created / updated / deleted in the caller's transaction. A master partner's events
 * are account-level (tenant null: decisions.md sends those to the account's first tenant).
 */
export function recordPartnerEvent(
	tx: As2Store,
	kind: "partner.created" | "partner.updated" | "partner.deleted",
	partner: EffectivePartner,
	context: { tenantId: string | null; environment: Environment },
	at: Date,
): Promise<string> {
	return recordEvent(
		tx,
		{
			kind,
			accountId: partner.record.accountId,
			tenantId: context.tenantId,
			environment: context.environment,
			data: kind === "partner.created" ? partnerCreatedView(partner) : partnerView(partner),
		},
		at,
	);
}
