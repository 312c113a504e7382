import type { CertificateInfo } from "@as2kit/core";
import type { As2Store, CertificateRecord, CertificateUsage, Environment } from "@as2kit/core/store";
import { recordEvent } from "../events.ts";
import { seal } from "../secrets/sealed.ts";
import { certificateView } from "../views/certificate-views.ts";

export interface NewCertificate {
	accountId: string;
	tenantId: string | null;
	partnerId: string | null;
	type: "identity" | "partner";
	usage: CertificateUsage;
	origin: "generated" | "uploaded";
	name: string;
	info: CertificateInfo;
	chainPem: string | null;
	/** PKCS#8 PEM of an identity's key: sealed here, bound to the certificate's id, never stored in clear. */
	privateKeyPem: string | null;
}

/**
 * Stores a certificate, active from now, and records certificate.uploaded, in the caller's
 * transaction. `event` names the tenant and environment the event belongs to.
 */
export async function insertCertificate(
	tx: As2Store,
	certificate: NewCertificate,
	context: { sealKey: Uint8Array; eventTenantId: string | null; environment: Environment },
	at: Date,
): Promise<CertificateRecord> {
	const { info } = certificate;
	const id = await tx.ids.next("cert_");
	const record: CertificateRecord = {
		id,
		accountId: certificate.accountId,
		tenantId: certificate.tenantId,
		partnerId: certificate.partnerId,
		type: certificate.type,
		usage: certificate.usage,
		origin: certificate.origin,
		name: certificate.name,
		subject: info.subject,
		issuer: info.issuer,
		serialNumber: info.serialNumber,
		fingerprint: info.fingerprint,
		keyAlgorithm: info.keyAlgorithm,
		keyBits: info.keyBits,
		notBefore: info.notBefore,
		expiresAt: info.notAfter,
		certificatePem: info.pem,
		chainPem: certificate.chainPem,
		privateKeySealed: certificate.privateKeyPem ? seal(context.sealKey, certificate.privateKeyPem, id) : null,
		active: true,
		activatedAt: at,
		expiringNotifiedAt: null,
		expiredNotifiedAt: null,
		deletedAt: null,
		createdAt: at,
		updatedAt: at,
	};
	await tx.certificates.create(record);
	await recordEvent(
		tx,
		{
			kind: "certificate.uploaded",
			accountId: certificate.accountId,
			tenantId: context.eventTenantId,
			environment: context.environment,
			data: certificateView(record),
		},
		at,
	);
	return record;
}
