import { As2Error } from "@as2kit/core";
import type { As2Store, CertificateRecord, CertificateUsage, PageRequest } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import { recordEvent } from "../events.ts";
import { effectivePartner } from "../partners/effective-partner.ts";
import { planOf } from "../plans.ts";
import { type Principal, requirePermission, requireWholeAccount } from "../principal.ts";
import { FieldChecks, fieldError, notFound } from "../validation-error.ts";
import { certificateView } from "../views/certificate-views.ts";
import { insertCertificate } from "./insert-certificate.ts";
import { type CertificateUpload, type ReadCertificate, readUpload } from "./read-upload.ts";

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

	/** A partner a certificate is uploaded for: 404 when not visible, 403 for a master's without the whole account. */
	async function partnerOf(principal: Principal, id: string) {
		const row = await store.partners.findVisible(principal.tenantId, principal.accountId, id);
		if (!row) throw new As2Error("PARTNER_NOT_FOUND", `partner ${id} not found`);
		const partner = effectivePartner(row);
		if (partner.type === "inherited") requireWholeAccount(principal, "a certificate for a master partner");
		return partner;
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

		/**
		 * The reach an upload needs, for the HTTP layer to check before it validates anything: a
		 * certificate of a master partner needs the whole account (README, Who may do what).
		 */
		async authorizeUpload(principal: Principal, partnerId: string | undefined): Promise<void> {
			requirePermission(principal, "certificates:write");
			if (partnerId !== undefined) await partnerOf(principal, partnerId);
		},

		/**
		 * The checks of an upload on the fields that passed the HTTP layer's schema, all at once
		 * (issue #16, defect 9): `failed` names the others (wire names). Reading the upload needs
		 * its `type` and every part of it.
		 */
		checkUpload(input: Partial<UploadInput>, failed: ReadonlySet<string>): void {
			if (input.type === undefined || failed.has("type")) return;
			const unread = ["partner_id", "certificate", "private_key", "pkcs12", "password"].filter((f) => failed.has(f));
			checkUploadFields({ ...input, type: input.type }, new Set(unread));
		},

		async upload(principal: Principal, input: UploadInput): Promise<CertificateRecord> {
			requirePermission(principal, "certificates:write");
			let tenantId: string | null = principal.tenantId;
			let partnerId: string | null = null;
			if (input.type === "partner" && input.partnerId) {
				const partner = await partnerOf(principal, input.partnerId);
				tenantId = partner.record.tenantId;
				partnerId = partner.record.id;
			}
			const read = checkUploadFields(input, new Set())!;
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

/**
 * An upload's fields checked together: the partner it is for (partner certificates) and the
 * certificate material, read; null when some part was not given whole (`unread`), in which
 * case the material is not read.
 */
function checkUploadFields(
	input: Omit<Partial<UploadInput>, "type"> & Pick<UploadInput, "type">,
	unread: ReadonlySet<string>,
): ReadCertificate | null {
	const fields = new FieldChecks();
	if (input.type === "partner" && !input.partnerId && !unread.has("partner_id")) {
		fields.add(fieldError("partner_id", "is required for a partner certificate"));
	}
	const material = ["certificate", "private_key", "pkcs12", "password"].some((f) => unread.has(f));
	const read = material ? null : (fields.check(() => readUpload(input, input.type)) ?? null);
	fields.throwIfAny();
	return read;
}
