import type { As2Store } from "@as2kit/core/store";
import type { PartnerMessageStats } from "../views/partner-views.ts";

/** A partner's message statistics as one tenant sees them. */
export async function partnerMessageStats(
	_store: As2Store,
	_tenantId: string,
	_partnerId: string,
): Promise<PartnerMessageStats> {
	// Messages arrive with issue #5; until a message exists, the counts are zero.
	return { totalSent: 0, totalReceived: 0, successRate: null, lastMessageAt: null };
}
