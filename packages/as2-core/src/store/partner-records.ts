/**
 * Trading partners, master partners and their per-tenant overrides, and certificates
 * (interface spec: Partner, Partner certificate, Inherited partner override).
 */

import type { KeyEncryptionAlgorithm } from "../algorithms.ts";

export type MdnMode = "sync" | "async" | "none";
export type SignAlgorithm = "SHA1withRSA" | "SHA256withRSA" | "SHA384withRSA" | "SHA512withRSA";
export type EncryptAlgorithm = "3DES" | "AES128_CBC" | "AES192_CBC" | "AES256_CBC" | "AES128_GCM" | "AES256_GCM";

/** The switches that adapt what we send to a partner's implementation. */
export interface CompatibilitySwitches {
	signedAttributes: boolean;
	algorithmProtection: boolean;
	transferEncoding: "binary" | "base64";
	compressOrder: "before-sign" | "after-sign";
	keyEncryption: KeyEncryptionAlgorithm;
	/** Stream with Transfer-Encoding: chunked; off by default, many AS2 servers want Content-Length. */
	chunked: boolean;
}

/**
 * A partner's choice: a named compatibility profile (the server's catalogue) and the switches
 * set over it. Records written before profiles existed hold all six switches and no `profile`.
 */
export type CompatibilityChoice = Partial<CompatibilitySwitches> & { profile?: string | null };

/** The connection, MDN and compatibility settings of a partner, beyond the spec's flat fields. */
export interface PartnerSettings {
	mdn: {
		/** Where the partner wants async MDNs sent to it is its own business; this is the URL we
		 * put in Receipt-Delivery-Option for async MDNs to us. null: this deployment's default. */
		url: string | null;
		/** Ask for a signed MDN. */
		signed: boolean;
		/** The MIC algorithm asked for in signed-receipt-micalg; null: the signing digest. */
		algorithm: "sha1" | "sha256" | "sha384" | "sha512" | null;
	};
	/** `retryIntervalSeconds` null: the deployment's schedule (AS2_SEND_RETRY_DELAYS). */
	connection: { timeoutSeconds: number; retryAttempts: number; retryIntervalSeconds: number | null };
	/** HTTP basic auth towards the partner's endpoint; the password is sealed. */
	auth: { username: string; passwordSealed: string } | null;
	/** Extra HTTP headers sent with every request to the partner. */
	headers: Record<string, string>;
	/** A custom CA (PEM) to verify the partner's TLS certificate, and/or a pinned leaf (SHA-256 of its DER, hex). */
	tls: { caPem: string | null; pinnedSha256: string | null };
	/** Engine switches for partners that need them (as2-anchors §C, §D). */
	compatibility: CompatibilityChoice;
	/** What the partner must apply to what it sends us; null follows our own sign/encrypt flags. */
	inbound: { requireSigned: boolean | null; requireEncrypted: boolean | null };
}

export interface ConnectionStatus {
	lastTest: Date;
	lastTestResult: "success" | "warning" | "failure";
	responseTimeMs: number | null;
}

export interface PartnerRecord {
	/** `prt_…`, or `prt_master_…` for a master partner. */
	id: string;
	accountId: string;
	/** The owning tenant; null for an account's master partner. */
	tenantId: string | null;
	name: string;
	as2Id: string;
	url: string;
	active: boolean;
	sign: boolean;
	encrypt: boolean;
	compress: boolean;
	mdnMode: MdnMode;
	signAlgorithm: SignAlgorithm | null;
	encryptAlgorithm: EncryptAlgorithm | null;
	settings: PartnerSettings;
	connectionStatus: ConnectionStatus | null;
	deactivatedAt: Date | null;
	deletedAt: Date | null;
	createdAt: Date;
	updatedAt: Date;
}

/**
 * What one tenant changed of a master partner. `name` and `active` are columns so lists can
 * filter and search on the effective values; the rest is the snake_case override object the
 * API shows as `override_settings`.
 */
export interface PartnerOverrideRecord {
	tenantId: string;
	masterPartnerId: string;
	name: string | null;
	active: boolean | null;
	settings: { [key: string]: unknown };
	createdAt: Date;
	updatedAt: Date;
}

/** A master partner as one tenant sees it, or a tenant's own partner (override null). */
export interface PartnerRow {
	partner: PartnerRecord;
	override: PartnerOverrideRecord | null;
}

export interface PartnerListFilter {
	/** Case-insensitive match on the (effective) name or the AS2 id. */
	search?: string;
	active?: boolean;
	type?: "tenant" | "inherited" | "all";
}

export type CertificateUsage = "encryption" | "signing" | "both";

export interface CertificateRecord {
	id: string;
	accountId: string;
	/** The tenant; null for certificates of an account's master partner. */
	tenantId: string | null;
	/** The partner of a partner certificate; null for an identity. */
	partnerId: string | null;
	type: "identity" | "partner";
	usage: CertificateUsage;
	/** Generated at tenant creation, or uploaded (only uploads count against the plan). */
	origin: "generated" | "uploaded";
	name: string;
	subject: string;
	issuer: string;
	serialNumber: string;
	fingerprint: string;
	keyAlgorithm: string;
	keyBits: number;
	notBefore: Date;
	expiresAt: Date;
	certificatePem: string;
	/** Intermediate certificates that came with it, PEM. */
	chainPem: string | null;
	/** The identity's private key, sealed under the master key; never serialized. */
	privateKeySealed: string | null;
	active: boolean;
	activatedAt: Date | null;
	/** When certificate.expiring / certificate.expired was emitted (exactly once each). */
	expiringNotifiedAt: Date | null;
	expiredNotifiedAt: Date | null;
	deletedAt: Date | null;
	createdAt: Date;
	updatedAt: Date;
}

export interface CertificateListFilter {
	tenantId: string;
	/** Also the certificates of the account's master partners (what the tenant inherits). */
	includeMaster?: { accountId: string };
	partnerId?: string;
	type?: "identity" | "partner";
	active?: boolean;
}
