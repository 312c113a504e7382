import { As2Error, importPrivateKey, type PrivateKey, parseCertificates } from "@as2kit/core";
import type { CertificateRecord } from "@as2kit/core/store";
import type { ConfigReads } from "../config-cache/config-reads.ts";
import { open } from "../secrets/sealed.ts";

export interface Identity {
	id: string;
	privateKey: PrivateKey;
	/** DER */
	certificate: Uint8Array;
	chain: Uint8Array[];
}

const usableFor = (certificate: CertificateRecord, usage: "signing" | "encryption") =>
	certificate.active && (certificate.usage === usage || certificate.usage === "both");
const validAt = (certificate: CertificateRecord, at: Date) => certificate.notBefore <= at && certificate.expiresAt > at;

/**
 * The keys and certificates a message needs, read from storage and kept decoded in memory:
 * opening a sealed key and importing it costs more than a whole small message, so each is
 * done once per certificate version (keyed by id and updated_at). The lists of certificates
 * come through the configuration cache (config-reads.ts: a change here is seen at once, one on
 * another instance within its TTL).
 */
export function createKeyMaterial(config: Pick<ConfigReads, "certificatesOf">, sealKey: Uint8Array) {
	const identities = new Map<string, Identity>();
	const certificates = new Map<string, Uint8Array>();

	function toIdentity(record: CertificateRecord): Identity {
		const cacheKey = `${record.id}@${record.updatedAt.getTime()}`;
		let identity = identities.get(cacheKey);
		if (!identity) {
			const pem = open(sealKey, record.privateKeySealed!, record.id).toString("utf8");
			identity = {
				id: record.id,
				privateKey: importPrivateKey(pem),
				certificate: derOf(record),
				chain: record.chainPem ? parseCertificates(record.chainPem) : [],
			};
			if (identities.size > 1000) identities.clear();
			identities.set(cacheKey, identity);
		}
		return identity;
	}

	function derOf(record: CertificateRecord): Uint8Array {
		let der = certificates.get(record.id);
		if (!der) {
			der = parseCertificates(record.certificatePem)[0]!;
			if (certificates.size > 5000) certificates.clear();
			certificates.set(record.id, der);
		}
		return der;
	}

	return {
		/**
		 * Our newest active, currently valid signing identity; SIGNING_FAILED without one,
		 * CERTIFICATE_EXPIRED when the only candidates have expired (interface spec, Message errors).
		 */
		async signingIdentity(tenantId: string, at: Date): Promise<Identity> {
			const all = (await config.certificatesOf({ identityOf: tenantId })).filter(
				(c) => usableFor(c, "signing") && c.privateKeySealed,
			);
			const valid = all.find((c) => validAt(c, at));
			if (valid) return toIdentity(valid);
			if (all.length > 0) {
				throw new As2Error("CERTIFICATE_EXPIRED", "our signing certificate has expired; upload a new identity", {
					details: { certificate_id: all[0]!.id, expired_at: all[0]!.expiresAt.toISOString() },
				});
			}
			throw new As2Error("SIGNING_FAILED", "no active identity certificate can sign for this tenant");
		},

		/** Every active identity that can decrypt: during a rollover the partner may use either (first that works). */
		async decryptionIdentities(tenantId: string): Promise<Identity[]> {
			const all = await config.certificatesOf({ identityOf: tenantId });
			return all.filter((c) => usableFor(c, "encryption") && c.privateKeySealed).map(toIdentity);
		},

		/**
		 * The partner's newest active, valid encryption certificate; ENCRYPTION_FAILED without one,
		 * CERTIFICATE_EXPIRED when only expired ones are left.
		 */
		async encryptionCertificate(partnerId: string, at: Date): Promise<Uint8Array> {
			const all = (await config.certificatesOf({ partnerId })).filter((c) => usableFor(c, "encryption"));
			const valid = all.find((c) => validAt(c, at));
			if (valid) return derOf(valid);
			if (all.length > 0) {
				throw new As2Error("CERTIFICATE_EXPIRED", "the partner's encryption certificate has expired", {
					details: { partner_id: partnerId, certificate_id: all[0]!.id, expired_at: all[0]!.expiresAt.toISOString() },
				});
			}
			throw new As2Error("ENCRYPTION_FAILED", "the partner has no active encryption certificate", {
				details: { partner_id: partnerId },
			});
		},

		/** The partner's active signing certificates: a signature must come from one of them. */
		async verificationCertificates(partnerId: string): Promise<Uint8Array[]> {
			const all = await config.certificatesOf({ partnerId });
			return all.filter((c) => usableFor(c, "signing")).map(derOf);
		},
	};
}

export type KeyMaterial = ReturnType<typeof createKeyMaterial>;
