import { describeCertificate, type GeneratedIdentity, generateSelfSigned } from "@as2kit/core";
import type { As2Store, CertificateRecord, Environment, TenantRecord } from "@as2kit/core/store";
import { insertCertificate } from "./insert-certificate.ts";

/** Validity of a generated tenant identity: two years, renewed by uploading the tenant's own. */
const IDENTITY_DAYS = 730;

/**
 * decisions.md, Identity certificate of a tenant: an RSA-2048 self-signed identity for signing
 * and decryption, made at tenant creation so the tenant can trade at once. Generated outside
 * the transaction (key generation takes tens of milliseconds), stored inside it.
 */
export async function generateTenantIdentity(
	name: string,
	now: Date,
	keyPair?: () => Promise<CryptoKeyPair>,
): Promise<GeneratedIdentity> {
	return generateSelfSigned({
		...(keyPair && { keyPair: await keyPair() }),
		commonName: name.slice(0, 64),
		organization: "as2kit",
		bits: 2048,
		// A minute of slack for partners whose clocks run a little behind ours.
		notBefore: new Date(now.getTime() - 60_000),
		notAfter: new Date(now.getTime() + IDENTITY_DAYS * 86_400_000),
	});
}

export async function insertIdentity(
	tx: As2Store,
	tenant: TenantRecord,
	identity: GeneratedIdentity,
	context: { sealKey: Uint8Array; environment: Environment },
	at: Date,
): Promise<CertificateRecord> {
	return insertCertificate(
		tx,
		{
			accountId: tenant.accountId,
			tenantId: tenant.id,
			partnerId: null,
			type: "identity",
			usage: "both",
			origin: "generated",
			name: `${tenant.name} identity (generated)`,
			info: describeCertificate(identity.certificate),
			chainPem: null,
			privateKeyPem: identity.privateKeyPem,
		},
		{ sealKey: context.sealKey, eventTenantId: tenant.id, environment: context.environment },
		at,
	);
}
