import { isSigningKeySizeAllowed } from "@as2kit/core";
import type { CertificateRecord } from "@as2kit/core/store";
import { isValidAs2Id } from "../as2-identifier.ts";
import type { TargetGuard } from "../transport/target-guard.ts";
import type { EffectivePartner } from "./effective-partner.ts";
import { ENCRYPT_ALGORITHMS, SIGN_ALGORITHMS } from "./partner-input.ts";
import { probeEndpoint } from "./probe-endpoint.ts";

export interface ValidationCheck {
	name: "as2_id_format" | "endpoint_accessibility" | "certificate_validity" | "algorithm_compatibility";
	status: "pass" | "fail" | "warning";
	message: string;
	/** The spec's issue name when the check did not pass. */
	issue?:
		| "INVALID_AS2_ID"
		| "UNREACHABLE_ENDPOINT"
		| "EXPIRED_CERTIFICATE"
		| "CERTIFICATE_REQUIRED"
		| "UNSUPPORTED_ALGORITHM";
}

const DIGEST_OF: Record<string, "sha1" | "sha256" | "sha384" | "sha512"> = {
	SHA1withRSA: "sha1",
	SHA256withRSA: "sha256",
	SHA384withRSA: "sha384",
	SHA512withRSA: "sha512",
};

/**
 * `POST /v1/partners/{id}/validate` (interface spec): AS2 id format, endpoint reachability
 * (DNS + TCP), certificates (ours and the partner's: present for what the partner settings need,
 * not expired), and algorithms against key sizes (spec, Limits: SHA-2 signatures need 2048-bit RSA).
 */
export async function validatePartner(
	partner: EffectivePartner,
	certificates: { partner: CertificateRecord[]; identities: CertificateRecord[] },
	now: Date,
	guard: TargetGuard,
): Promise<{ valid: boolean; checks: ValidationCheck[] }> {
	const p = partner.record;
	const checks: ValidationCheck[] = [];
	checks.push(
		isValidAs2Id(p.as2Id)
			? { name: "as2_id_format", status: "pass", message: `${p.as2Id} is a valid AS2 identifier` }
			: {
					name: "as2_id_format",
					status: "fail",
					message: "the AS2 id has invalid characters",
					issue: "INVALID_AS2_ID",
				},
	);

	const probe = await probeEndpoint(p.url, {
		timeoutMs: Math.min(10_000, p.settings.connection.timeoutSeconds * 1000),
		tcpOnly: true,
		guard,
	});
	checks.push(
		probe.reachable
			? {
					name: "endpoint_accessibility",
					status: "pass",
					message: `${p.url} accepts connections (${probe.responseTimeMs} ms)`,
				}
			: {
					name: "endpoint_accessibility",
					status: "fail",
					message: probe.error ?? "unreachable",
					issue: "UNREACHABLE_ENDPOINT",
				},
	);

	checks.push(certificateCheck(partner, certificates, now));
	checks.push(algorithmCheck(partner, certificates, now));
	return { valid: checks.every((c) => c.status !== "fail"), checks };
}

function usable(certificates: CertificateRecord[], usage: "encryption" | "signing", now: Date): CertificateRecord[] {
	return certificates.filter(
		(c) => c.active && (c.usage === usage || c.usage === "both") && c.expiresAt > now && c.notBefore <= now,
	);
}

function certificateCheck(
	partner: EffectivePartner,
	certificates: { partner: CertificateRecord[]; identities: CertificateRecord[] },
	now: Date,
): ValidationCheck {
	const expired = [...certificates.partner, ...certificates.identities].filter((c) => c.active && c.expiresAt <= now);
	if (expired.length > 0) {
		return {
			name: "certificate_validity",
			status: "fail",
			message: `expired: ${expired.map((c) => `${c.id} (${c.expiresAt.toISOString()})`).join(", ")}`,
			issue: "EXPIRED_CERTIFICATE",
		};
	}
	const needs: string[] = [];
	if (partner.record.encrypt && usable(certificates.partner, "encryption", now).length === 0)
		needs.push("the partner's encryption certificate");
	if (partner.record.sign && usable(certificates.identities, "signing", now).length === 0)
		needs.push("our signing identity");
	const inbound = partner.record.settings.inbound.requireSigned ?? partner.record.sign;
	if (inbound && usable(certificates.partner, "signing", now).length === 0)
		needs.push("the partner's signing certificate");
	if (needs.length > 0) {
		return {
			name: "certificate_validity",
			status: "fail",
			message: `missing ${needs.join(", ")}`,
			issue: "CERTIFICATE_REQUIRED",
		};
	}
	return {
		name: "certificate_validity",
		status: "pass",
		message: "every certificate the settings need is present and valid",
	};
}

function algorithmCheck(
	partner: EffectivePartner,
	certificates: { partner: CertificateRecord[]; identities: CertificateRecord[] },
	now: Date,
): ValidationCheck {
	const p = partner.record;
	if (p.signAlgorithm && !SIGN_ALGORITHMS.includes(p.signAlgorithm)) {
		return {
			name: "algorithm_compatibility",
			status: "fail",
			message: `${p.signAlgorithm} is not supported`,
			issue: "UNSUPPORTED_ALGORITHM",
		};
	}
	if (p.encryptAlgorithm && !ENCRYPT_ALGORITHMS.includes(p.encryptAlgorithm)) {
		return {
			name: "algorithm_compatibility",
			status: "fail",
			message: `${p.encryptAlgorithm} is not supported`,
			issue: "UNSUPPORTED_ALGORITHM",
		};
	}
	const digest = DIGEST_OF[p.signAlgorithm ?? "SHA256withRSA"]!;
	const weak = [
		...usable(certificates.identities, "signing", now),
		...usable(certificates.partner, "signing", now),
	].filter((c) => !isSigningKeySizeAllowed(digest, c.keyBits));
	if (p.sign && weak.length > 0) {
		return {
			name: "algorithm_compatibility",
			status: "fail",
			message: `${p.signAlgorithm ?? "SHA256withRSA"} needs a larger key than ${weak.map((c) => `${c.id} (${c.keyBits} bits)`).join(", ")}`,
			issue: "UNSUPPORTED_ALGORITHM",
		};
	}
	if (p.encryptAlgorithm === "3DES" || p.signAlgorithm === "SHA1withRSA") {
		return {
			name: "algorithm_compatibility",
			status: "warning",
			message: "3DES and SHA-1 are legacy; prefer AES and SHA-256 where the partner supports them",
		};
	}
	return { name: "algorithm_compatibility", status: "pass", message: "algorithms and key sizes agree" };
}
