import { As2Error } from "@as2kit/core";
import type { As2Store, PageRequest, PartnerListFilter } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import { authorize, type Principal } from "../principal.ts";
import { fieldError, notFound } from "../validation-error.ts";
import { type EffectivePartner, effectivePartner } from "./effective-partner.ts";
import { recordPartnerEvent } from "./partner-events.ts";
import { type PartnerInput, toPartnerPatch } from "./partner-input.ts";
import { checkPartnerLimit } from "./partner-limit.ts";
import { applyPatch } from "./partner-patch.ts";
import { newPartner, withAs2IdConflict } from "./partners.ts";

/**
 * Master partners (decisions.md: `/v1/accounts/{account_id}/partners`): defined once per
 * account, inherited by every tenant as `type: inherited`. Account-scoped credentials read
 * them; changing them changes every tenant, so that needs a credential for the whole account
 * (README, Who may do what). Their events are account-level.
 */
export function createMasterPartnerService(deps: ServiceDeps) {
	const { store, now, config, sealKey } = deps;

	function requireAccount(
		principal: Principal,
		accountId: string,
		permission: "partners:read" | "partners:write",
	): void {
		authorize(principal, { permission, reach: permission === "partners:write" ? "whole-account" : "account" });
		if (accountId !== principal.accountId) throw notFound("account");
	}

	async function master(tx: As2Store, principal: Principal, id: string): Promise<EffectivePartner> {
		const record = await tx.partners.getMaster(principal.accountId, id);
		if (!record) throw new As2Error("PARTNER_NOT_FOUND", `master partner ${id} not found`);
		return effectivePartner({ partner: record, override: null });
	}

	const account = (principal: Principal) => ({ tenantId: null, environment: principal.environment });

	return {
		async list(principal: Principal, accountId: string, filter: Omit<PartnerListFilter, "type">, page: PageRequest) {
			requireAccount(principal, accountId, "partners:read");
			const result = await store.partners.listMasters(accountId, filter, page);
			return {
				items: result.items.map((partner) => effectivePartner({ partner, override: null })),
				total: result.total,
			};
		},

		async get(principal: Principal, accountId: string, id: string) {
			requireAccount(principal, accountId, "partners:read");
			const partner = await master(store, principal, id);
			return { partner, certificates: await store.certificates.listFor({ partnerId: id }) };
		},

		async create(
			principal: Principal,
			accountId: string,
			input: PartnerInput & { name: string; as2Id: string; url: string },
		) {
			requireAccount(principal, accountId, "partners:write");
			return withAs2IdConflict(() =>
				store.transaction(async (tx) => {
					const at = now();
					const id = await tx.ids.next("prt_master_");
					const patch = toPartnerPatch(input, {
						allowHttp: config.allowHttp,
						allowPrivateTargets: config.allowPrivateTargets,
						secretKey: sealKey,
						sealContext: id,
					});
					await checkPartnerLimit(tx, accountId, principal.plan, config);
					const record = applyPatch(newPartner(id, accountId, null, at, config.sendRetryDelays), patch);
					await tx.partners.create(record);
					const partner = effectivePartner({ partner: record, override: null });
					await recordPartnerEvent(tx, "partner.created", partner, account(principal), at);
					return partner;
				}),
			);
		},

		async update(principal: Principal, accountId: string, id: string, input: PartnerInput) {
			requireAccount(principal, accountId, "partners:write");
			return withAs2IdConflict(() =>
				store.transaction(async (tx) => {
					const current = await master(tx, principal, id);
					const patch = toPartnerPatch(input, {
						allowHttp: config.allowHttp,
						allowPrivateTargets: config.allowPrivateTargets,
						secretKey: sealKey,
						sealContext: id,
					});
					if (patch.as2Id !== undefined && patch.as2Id !== current.record.as2Id) {
						throw fieldError("as2_id", "of a master partner is fixed; create a new master partner instead");
					}
					const at = now();
					const record = await tx.partners.update(id, { ...applyPatch(current.record, patch), updatedAt: at });
					const partner = effectivePartner({ partner: record!, override: null });
					await recordPartnerEvent(tx, "partner.updated", partner, account(principal), at);
					return partner;
				}),
			);
		},

		async delete(principal: Principal, accountId: string, id: string) {
			requireAccount(principal, accountId, "partners:write");
			return store.transaction(async (tx) => {
				const partner = await master(tx, principal, id);
				const at = now();
				await tx.partners.softDelete(id, at);
				await tx.certificates.deactivateForPartner(id, at);
				await recordPartnerEvent(
					tx,
					"partner.deleted",
					{ ...partner, record: { ...partner.record, active: false } },
					account(principal),
					at,
				);
				return { id, deletedAt: at };
			});
		},
	};
}
