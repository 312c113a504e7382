import type { CertificateRecord, PartnerRecord, PartnerSettings } from "@as2kit/core/store";
import { T0 } from "./fixtures.ts";

export const SETTINGS: PartnerSettings = {
	mdn: { url: null, signed: true, algorithm: "sha256" },
	connection: { timeoutSeconds: 120, retryAttempts: 5, retryIntervalSeconds: 60 },
	auth: null,
	headers: { "X-Partner": "yes" },
	tls: { caPem: null, pinnedSha256: null },
	compatibility: {
		signedAttributes: true,
		algorithmProtection: true,
		transferEncoding: "binary",
		compressOrder: "before-sign",
		keyEncryption: "rsa",
		chunked: false,
	},
	inbound: { requireSigned: null, requireEncrypted: null },
};

export function partner(id: string, overrides: Partial<PartnerRecord> = {}): PartnerRecord {
	return {
		id,
		accountId: "acc_000001",
		tenantId: "tnt_000001",
		name: `Partner ${id}`,
		as2Id: id.toUpperCase(),
		url: "https://partner.example/as2",
		active: true,
		sign: true,
		encrypt: true,
		compress: false,
		mdnMode: "async",
		signAlgorithm: "SHA256withRSA",
		encryptAlgorithm: "AES256_CBC",
		settings: SETTINGS,
		connectionStatus: null,
		deactivatedAt: null,
		deletedAt: null,
		createdAt: T0,
		updatedAt: T0,
		...overrides,
	};
}

export function certificate(id: string, overrides: Partial<CertificateRecord> = {}): CertificateRecord {
	return {
		id,
		accountId: "acc_000001",
		tenantId: "tnt_000001",
		partnerId: "prt_000001",
		type: "partner",
		usage: "both",
		origin: "uploaded",
		name: `Cert ${id}`,
		subject: "CN=partner",
		issuer: "CN=partner",
		serialNumber: "01",
		fingerprint: "SHA256:AA",
		keyAlgorithm: "rsa",
		keyBits: 2048,
		notBefore: T0,
		expiresAt: new Date("2027-01-01T00:00:00Z"),
		certificatePem: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
		chainPem: null,
		privateKeySealed: null,
		active: true,
		activatedAt: T0,
		expiringNotifiedAt: null,
		expiredNotifiedAt: null,
		deletedAt: null,
		createdAt: T0,
		updatedAt: T0,
		...overrides,
	};
}
