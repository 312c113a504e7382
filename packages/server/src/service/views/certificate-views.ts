import type { CertificateRecord } from "@as2kit/core/store";
import * as v from "valibot";
import { formatInstant, formatOptionalInstant } from "./instant.ts";
import { idSchema, instantSchema, nullableInstantSchema } from "./schema-types.ts";

export const certificateSchema = v.object({
	id: idSchema("cert_"),
	name: v.string(),
	type: v.picklist(["identity", "partner"]),
	usage: v.picklist(["encryption", "signing", "both"]),
	partner_id: v.nullable(v.string()),
	subject: v.string(),
	issuer: v.string(),
	serial_number: v.string(),
	fingerprint: v.pipe(v.string(), v.description("SHA256:AB:CD:… of the DER certificate")),
	key_algorithm: v.string(),
	key_bits: v.number(),
	active: v.boolean(),
	has_private_key: v.pipe(v.boolean(), v.description("identity certificates: we hold the key (it is never returned)")),
	origin: v.picklist(["generated", "uploaded"]),
	not_before: instantSchema,
	expires_at: instantSchema,
	activated_at: nullableInstantSchema,
	created_at: instantSchema,
	updated_at: instantSchema,
	certificate_pem: v.string(),
	chain_pem: v.nullable(v.string()),
});

/** A certificate as the API shows it: public material only; the private key never leaves storage. */
export function certificateView(certificate: CertificateRecord): v.InferOutput<typeof certificateSchema> {
	return {
		id: certificate.id,
		name: certificate.name,
		type: certificate.type,
		usage: certificate.usage,
		partner_id: certificate.partnerId,
		subject: certificate.subject,
		issuer: certificate.issuer,
		serial_number: certificate.serialNumber,
		fingerprint: certificate.fingerprint,
		key_algorithm: certificate.keyAlgorithm,
		key_bits: certificate.keyBits,
		active: certificate.active,
		has_private_key: certificate.privateKeySealed !== null,
		origin: certificate.origin,
		not_before: formatInstant(certificate.notBefore),
		expires_at: formatInstant(certificate.expiresAt),
		activated_at: formatOptionalInstant(certificate.activatedAt),
		created_at: formatInstant(certificate.createdAt),
		updated_at: formatInstant(certificate.updatedAt),
		certificate_pem: certificate.certificatePem,
		chain_pem: certificate.chainPem,
	};
}

/** `certificate.expiring` (interface spec, Event kinds). */
export function certificateExpiringView(certificate: CertificateRecord, now: Date) {
	return {
		id: certificate.id,
		name: certificate.name,
		type: certificate.type,
		subject: certificate.subject,
		expires_at: formatInstant(certificate.expiresAt),
		days_until_expiry: Math.max(0, Math.ceil((certificate.expiresAt.getTime() - now.getTime()) / 86_400_000)),
	};
}
