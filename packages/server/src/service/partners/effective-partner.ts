import type { PartnerRecord, PartnerRow } from "@as2kit/core/store";
import { applyPatch, type PartnerPatch } from "./partner-patch.ts";

/** A partner as one tenant uses it: its own, or a master with the tenant's override applied. */
export interface EffectivePartner {
	record: PartnerRecord;
	type: "tenant" | "inherited";
	masterPartnerId: string | null;
	/** The tenant's stored override of a master partner; null when none. */
	override: PartnerPatch | null;
}

export function effectivePartner(row: PartnerRow): EffectivePartner {
	if (row.partner.tenantId !== null) {
		return { record: row.partner, type: "tenant", masterPartnerId: null, override: null };
	}
	const override = row.override ? reviveOverride(row.override.settings) : null;
	return {
		record: override ? applyPatch(row.partner, override) : row.partner,
		type: "inherited",
		masterPartnerId: row.partner.id,
		override,
	};
}

/** An override as stored (JSON): instants come back as strings. */
function reviveOverride(stored: { [key: string]: unknown }): PartnerPatch {
	const patch = { ...stored } as PartnerPatch & { deactivatedAt?: unknown };
	if (typeof patch.deactivatedAt === "string") patch.deactivatedAt = new Date(patch.deactivatedAt);
	return patch;
}
