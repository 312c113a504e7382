import { As2Error } from "@as2kit/core";
import type { As2Store, CertificateRecord, CertificateUsage, PageRequest } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import { recordEvent } from "../events.ts";
import { effectivePartner } from "../partners/effective-partner.ts";
import { planOf } from "../plans.ts";
import { type Principal, requirePermission, requireWholeAccount } from "../principal.ts";
import { fieldError, notFound } from "../validation-error.ts";
import { certificateView } from "../views/certificate-views.ts";
import { insertCertificate } from "./insert-certificate.ts";
import { type CertificateUpload, readUpload } from "./read-upload.ts";

export interface UploadInput extends CertificateUpload {
	name: string;
	type: "identity" | "partner";
	usage: CertificateUsage;
	partnerId?: string | undefined;
}

/**
 * Certificates of a tenant (decisions.md, Identity certificate of a tenant): its identities
 * (with private keys, sealed) and its partners' certificates, plus the certificates of the
 * account's master partners, which tenant keys see read-only. Two active certificates of one
 * usage may overlap (rollover): inbound processing tries each.
 */
export function createCertificateService(deps: ServiceDeps) {
	const { store, now, config, sealKey } = deps;

	/** A certificate this principal may see; `write` also requires the right to change it. */
	async function visible(tx: As2Store, principal: Principal, id: string, write: boolean): Promise<CertificateRecord> {
		const certificate = await tx.certificates.get(principal.accountId, id);
		const own = certificate?.tenantId === principal.tenantId;
		const inherited = certificate !== null && certificate.tenantId === null;
		if (!certificate || !(own || inherited)) throw notFound("certificate");
		// Every tenant uses a master partner's certificates (README, Who may do what).
		if (write && inherited) requireWholeAccount(principal, "changing a master partner's certificate");
		return certificate;
	}

	async function setActive(principal: Principal, id: string, active: boolean): Promise<CertificateRecord> {
		requirePermission(principal, "certificates:write");
		return store.transaction(async (tx) => {
			const certificate = await visible(tx, principal, id, true);
			if (certificate.active === active) return certificate;
			const at = now();
			const updated = (await tx.certificates.update(id, {
				active,
				activatedAt: active ? at : certificate.activatedAt,
				updatedAt: at,
			}))!;
			if (active) {
				await recordEvent(
					tx,
					{
						kind: "certificate.activated",
						accountId: principal.accountId,
						tenantId: principal.tenantId,
						environment: principal.environment,
						data: certificateView(updated),
					},
					at,
				);
			}
			return updated;
		});
	}

	return {
		async list(
			principal: Principal,
			filter: { partnerId?: string; type?: "identity" | "partner"; active?: boolean },
			page: PageRequest,
		) {
			requirePermission(principal, "certificates:read");
			return store.certificates.list(
				{ tenantId: principal.tenantId, includeMaster: { accountId: principal.accountId }, ...filter },
				page,
			);
		},

		async get(principal: Principal, id: string): Promise<CertificateRecord> {
			requirePermission(principal, "certificates:read");
			return visible(store, principal, id, false);
		},

		async upload(principal: Principal, input: UploadInput): Promise<CertificateRecord> {
			requirePermission(principal, "certificates:write");
			let tenantId: string | null = principal.tenantId;
			let partnerId: string | null = null;
			if (input.type === "partner") {
				if (!input.partnerId) throw fieldError("partner_id", "is required for a partner certificate");
				const row = await store.partners.findVisible(principal.tenantId, principal.accountId, input.partnerId);
				if (!row) throw new As2Error("PARTNER_NOT_FOUND", `partner ${input.partnerId} not found`);
				const partner = effectivePartner(row);
				if (partner.type === "inherited") requireWholeAccount(principal, "a certificate for a master partner");
				tenantId = partner.record.tenantId;
				partnerId = partner.record.id;
			}
			const read = readUpload(input, input.type);
			return store.transaction(async (tx) => {
				const plan = planOf(principal.plan, config.enterpriseLimits);
				const current = await tx.certificates.countUploaded(principal.accountId);
				if (plan.certificates !== null && current >= plan.certificates) {
					throw new As2Error(
						"CERTIFICATE_LIMIT_EXCEEDED",
						`the ${plan.name} plan allows ${plan.certificates} certificates`,
						{
							details: {
								current_certificates: current,
								plan_limit: plan.certificates,
								plan: plan.name,
								upgrade_url: `${config.publicUrl ?? ""}/v1/account`,
							},
						},
					);
				}
				return insertCertificate(
					tx,
					{
						accountId: principal.accountId,
						tenantId,
						partnerId,
						type: input.type,
						usage: input.usage,
						origin: "uploaded",
						name: input.name,
						info: read.info,
						chainPem: read.chainPem,
						privateKeyPem: read.privateKeyPem,
					},
					{ sealKey, eventTenantId: principal.tenantId, environment: principal.environment },
					now(),
				);
			});
		},

		activate: (principal: Principal, id: string) => setActive(principal, id, true),
		deactivate: (principal: Principal, id: string) => setActive(principal, id, false),

		async delete(principal: Principal, id: string): Promise<{ id: string; deletedAt: Date }> {
			requirePermission(principal, "certificates:write");
			return store.transaction(async (tx) => {
				await visible(tx, principal, id, true);
				const at = now();
				await tx.certificates.softDelete(id, at);
				return { id, deletedAt: at };
			});
		},
	};
}
