import { As2Error } from "@as2kit/core";
import type { As2Store, PageRequest, PartnerListFilter, PartnerRecord } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import { type Principal, requirePermission } from "../principal.ts";
import { fieldError, isConflictOn, notFound } from "../validation-error.ts";
import { type EffectivePartner, effectivePartner } from "./effective-partner.ts";
import { partnerMessageStats, partnerStats, type StatsPeriod } from "./message-stats.ts";
import { recordPartnerEvent } from "./partner-events.ts";
import { type PartnerInput, toPartnerPatch } from "./partner-input.ts";
import { checkPartnerLimit } from "./partner-limit.ts";
import { applyPatch, defaultSettings, mergePatches, type PartnerPatch } from "./partner-patch.ts";

/**
 * Partners as a tenant manages them (interface spec, Partners): its own, plus the account's
 * master partners inherited read-only by tenant keys and overridable by account keys
 * (decisions.md, Clarifications: inherited partners and keys).
 */
export function createPartnerService(deps: ServiceDeps) {
	const { store, now, config, sealKey } = deps;

	async function visible(tx: As2Store, principal: Principal, id: string): Promise<EffectivePartner> {
		const row = await tx.partners.findVisible(principal.tenantId, principal.accountId, id);
		if (!row) throw new As2Error("PARTNER_NOT_FOUND", `partner ${id} not found`);
		return effectivePartner(row);
	}

	/** Tenant keys see inherited partners read-only (decisions.md): 403 for any change. */
	function requireOverrideRight(principal: Principal, partner: EffectivePartner): void {
		if (partner.type === "inherited" && principal.scope !== "account") {
			throw new As2Error("insufficient_scope", "inherited partners are read-only for tenant keys", {
				details: { master_partner_id: partner.masterPartnerId },
			});
		}
	}

	/** Applies a change to a tenant partner, or stores it as the tenant's override of a master. */
	async function change(principal: Principal, id: string, makePatch: (partner: EffectivePartner) => PartnerPatch) {
		return withAs2IdConflict(() =>
			store.transaction(async (tx) => {
				const partner = await visible(tx, principal, id);
				requireOverrideRight(principal, partner);
				const patch = makePatch(partner);
				const at = now();
				let updated: EffectivePartner;
				if (partner.type === "tenant") {
					if (patch.as2Id !== undefined && patch.as2Id !== partner.record.as2Id) {
						await ensureAs2IdFree(tx, principal, patch.as2Id);
					}
					const next = applyPatch(partner.record, patch);
					const record = await tx.partners.update(id, { ...next, updatedAt: at });
					updated = { ...partner, record: record! };
				} else {
					if (patch.as2Id !== undefined)
						throw fieldError("as2_id", "of an inherited partner is the master's and cannot be overridden");
					const override = mergePatches(partner.override ?? {}, patch);
					const existing = await tx.partners.getOverride(principal.tenantId, id);
					await tx.partners.putOverride({
						tenantId: principal.tenantId,
						masterPartnerId: id,
						name: override.name ?? null,
						active: override.active ?? null,
						settings: override as Record<string, unknown>,
						createdAt: existing?.createdAt ?? at,
						updatedAt: at,
					});
					updated = effectivePartner((await tx.partners.findVisible(principal.tenantId, principal.accountId, id))!);
				}
				await recordPartnerEvent(tx, "partner.updated", updated, principal, at);
				return updated;
			}),
		);
	}

	function patchOf(input: PartnerInput, id: string): PartnerPatch {
		return toPartnerPatch(input, {
			allowHttp: config.allowHttp,
			allowPrivateTargets: config.allowPrivateTargets,
			secretKey: sealKey,
			sealContext: id,
		});
	}

	async function get(principal: Principal, id: string) {
		requirePermission(principal, "partners:read");
		const partner = await visible(store, principal, id);
		const certificates = await store.certificates.listFor({ partnerId: id });
		const stats = await partnerMessageStats(store, principal.tenantId, id, now());
		return { partner, certificates, stats };
	}

	return {
		get,

		/**
		 * The checks of create and update (partner and master partner) on the fields given, all
		 * at once: the HTTP layer runs them on what passed its schema, so one 422 names every
		 * invalid field. Nothing is stored.
		 */
		checkInput(input: PartnerInput): void {
			patchOf(input, "unsaved");
		},

		/** The partner's traffic with this tenant over a period (interface spec, GET /v1/partners/{id}/stats). */
		async stats(principal: Principal, id: string, period?: StatsPeriod) {
			requirePermission(principal, "partners:read");
			const partner = await visible(store, principal, id);
			return { partner, stats: await partnerStats(store, principal.tenantId, id, now(), period) };
		},

		async list(principal: Principal, filter: PartnerListFilter, page: PageRequest) {
			requirePermission(principal, "partners:read");
			const result = await store.partners.list(principal.tenantId, principal.accountId, filter, page);
			return { items: result.items.map(effectivePartner), total: result.total };
		},

		async create(
			principal: Principal,
			input: PartnerInput & { name: string; as2Id: string; url: string },
		): Promise<EffectivePartner> {
			requirePermission(principal, "partners:write");
			return withAs2IdConflict(() =>
				store.transaction(async (tx) => {
					const at = now();
					const id = await tx.ids.next("prt_");
					const patch = patchOf(input, id);
					await ensureAs2IdFree(tx, principal, input.as2Id);
					await checkPartnerLimit(tx, principal.accountId, principal.plan, config);
					const record = applyPatch(
						newPartner(id, principal.accountId, principal.tenantId, at, config.sendRetryDelays),
						patch,
					);
					await tx.partners.create(record);
					const partner = effectivePartner({ partner: record, override: null });
					await recordPartnerEvent(tx, "partner.created", partner, principal, at);
					return partner;
				}),
			);
		},

		async update(principal: Principal, id: string, input: PartnerInput): Promise<EffectivePartner> {
			requirePermission(principal, "partners:write");
			return change(principal, id, () => patchOf(input, id));
		},

		async setActive(principal: Principal, id: string, active: boolean): Promise<EffectivePartner> {
			requirePermission(principal, "partners:write");
			const at = now();
			return change(principal, id, () => ({ active, deactivatedAt: active ? null : at }));
		},

		async delete(principal: Principal, id: string): Promise<{ id: string; deletedAt: Date }> {
			requirePermission(principal, "partners:write");
			return store.transaction(async (tx) => {
				const partner = await visible(tx, principal, id);
				if (partner.type === "inherited") {
					throw new As2Error(
						"insufficient_scope",
						"an inherited partner is deleted with its master, at /v1/accounts/{account_id}/partners",
						{
							details: { master_partner_id: id },
						},
					);
				}
				const at = now();
				await tx.partners.softDelete(id, at);
				// interface spec, Partner active flag: certificates become inactive; message history is kept.
				await tx.certificates.deactivateForPartner(id, at);
				await recordPartnerEvent(
					tx,
					"partner.deleted",
					{ ...partner, record: { ...partner.record, active: false, updatedAt: at } },
					principal,
					at,
				);
				return { id, deletedAt: at };
			});
		},

		async getOverrides(principal: Principal, id: string) {
			requirePermission(principal, "partners:read");
			const partner = await visible(store, principal, id);
			requireInherited(partner);
			requireOverrideRight(principal, partner);
			return partner;
		},

		async deleteOverrides(principal: Principal, id: string): Promise<EffectivePartner> {
			requirePermission(principal, "partners:write");
			return store.transaction(async (tx) => {
				const partner = await visible(tx, principal, id);
				requireInherited(partner);
				requireOverrideRight(principal, partner);
				await tx.partners.deleteOverride(principal.tenantId, id);
				const master = (await tx.partners.getMaster(principal.accountId, id))!;
				const reset = effectivePartner({ partner: master, override: null });
				await recordPartnerEvent(tx, "partner.updated", reset, principal, now());
				return reset;
			});
		},
	};
}

export function newPartner(
	id: string,
	accountId: string,
	tenantId: string | null,
	at: Date,
	sendRetryDelays?: readonly number[],
): PartnerRecord {
	return {
		id,
		accountId,
		tenantId,
		name: "",
		as2Id: "",
		url: "",
		active: true,
		sign: false,
		encrypt: false,
		compress: false,
		mdnMode: "async",
		signAlgorithm: null,
		encryptAlgorithm: null,
		settings: defaultSettings(sendRetryDelays ?? [0, 60, 300, 900, 3600]),
		connectionStatus: null,
		deactivatedAt: null,
		deletedAt: null,
		createdAt: at,
		updatedAt: at,
	};
}

function requireInherited(partner: EffectivePartner): void {
	if (partner.type !== "inherited") throw notFound("overrides of an inherited partner");
}

/** A tenant partner's AS2 id must not be another of its partners', nor an inherited master's (AS2-From routing). */
async function ensureAs2IdFree(tx: As2Store, principal: Principal, as2Id: string): Promise<void> {
	if (await tx.partners.findVisibleByAs2Id(principal.tenantId, principal.accountId, as2Id)) throw duplicateAs2Id();
}

const duplicateAs2Id = () => fieldError("as2_id", "is already used by another partner", "DUPLICATE_AS2_ID");

export async function withAs2IdConflict<T>(fn: () => Promise<T>): Promise<T> {
	try {
		return await fn();
	} catch (error) {
		if (isConflictOn(error, "partners.")) throw duplicateAs2Id();
		throw error;
	}
}
