import { As2Error } from "../errors/index.ts";
import { readCertificateFields } from "./certificate-fields.ts";

/**
 * RFC 5280 §4.1.2.5: a certificate is valid from notBefore to notAfter, both inclusive.
 * Throws CERTIFICATE_EXPIRED (details `not_before`, `not_after`, `at`) outside that window,
 * "not yet valid" included.
 *
 * @example
 * checkValidity(partnerCertDer, message.receivedAt);
 */
export function checkValidity(der: Uint8Array, at: Date = new Date()): void {
	const { notBefore, notAfter } = readCertificateFields(der);
	const t = at.getTime();
	if (t >= notBefore.getTime() && t <= notAfter.getTime()) return;
	const details = { not_before: notBefore.toISOString(), not_after: notAfter.toISOString(), at: at.toISOString() };
	throw new As2Error(
		"CERTIFICATE_EXPIRED",
		t < notBefore.getTime()
			? `the certificate is not valid before ${details.not_before}`
			: `the certificate expired on ${details.not_after}`,
		{ details },
	);
}
