import { DIGESTS, type DigestAlgorithm } from "../algorithms.ts";
import { As2Error } from "../errors/index.ts";

/** Interface spec, Limits, "Signature key sizes": SHA1withRSA 1024+ bits; SHA-2 variants 2048+. */
export function minimumSigningKeyBits(digest: DigestAlgorithm): number {
	return digest === "sha1" ? 1024 : 2048;
}

export function isSigningKeySizeAllowed(digest: DigestAlgorithm, bits: number): boolean {
	return bits >= minimumSigningKeyBits(digest);
}

/**
 * Throws when an RSA key is too small for a signature digest (interface spec, Limits):
 * SIGNING_FAILED when we would sign, UNSUPPORTED_ALGORITHM when a setting is validated.
 *
 * @example
 * checkSigningKeySize("sha256", 1024); // throws SIGNING_FAILED
 */
export function checkSigningKeySize(
	digest: DigestAlgorithm,
	bits: number,
	purpose: "sign" | "validate" = "sign",
): void {
	if (isSigningKeySizeAllowed(digest, bits)) return;
	const min = minimumSigningKeyBits(digest);
	throw new As2Error(
		purpose === "sign" ? "SIGNING_FAILED" : "UNSUPPORTED_ALGORITHM",
		`${DIGESTS[digest].specName} needs an RSA key of at least ${min} bits; this key has ${bits}`,
		{ details: { digest, key_bits: bits, minimum_bits: min } },
	);
}
