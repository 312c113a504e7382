import { fromLatin1 } from "../bytes/index.ts";
import { importPrivateKey } from "../crypto/index.ts";
import { As2Error } from "../errors/index.ts";
import { privateKeyMatches } from "./certificate-key.ts";
import { parseCertificates } from "./parse-certificates.ts";
import { looksLikePem } from "./pem.ts";
import { type Identity, parsePkcs12 } from "./pkcs12.ts";

export interface IdentityInput {
	/** Private key: PEM (PKCS#1, PKCS#8, encrypted with `password`) or DER PKCS#8. */
	key?: string | Uint8Array;
	/** The certificate and optionally its chain (PEM, DER or .p7b). Default: certificates in `key`'s PEM. */
	certificate?: string | Uint8Array;
	pkcs12?: Uint8Array;
	password?: string;
}

/**
 * Our own signing/decryption identity, from a PKCS#12 file or a key plus certificate(s).
 * The certificate is the one whose public key matches the private key (INVALID_KEY when
 * none does); the other certificates are the chain.
 *
 * @example
 * const me = readIdentity({ key: keyPem, certificate: certPem, password: "secret" });
 * signDetached(content, { ...me, digest: "sha256" });
 */
export function readIdentity(opts: IdentityInput): Identity {
	if (opts.pkcs12) return parsePkcs12(opts.pkcs12, opts.password ?? "");
	if (!opts.key) throw new As2Error("INVALID_KEY", "a private key or a PKCS#12 file is required");
	if (opts.password === undefined && isEncryptedPem(opts.key)) {
		throw new As2Error("INVALID_KEY", "the private key is encrypted: a password is required");
	}
	const privateKey = importPrivateKey(opts.key, opts.password);
	if (privateKey.type !== "private") throw new As2Error("INVALID_KEY", "not a private key");
	const certificateInput = opts.certificate ?? (looksLikePem(opts.key) ? opts.key : undefined);
	if (certificateInput === undefined) throw new As2Error("INVALID_CERTIFICATE", "a certificate is required");
	const certificates = parseCertificates(certificateInput);
	const index = certificates.findIndex((certificate) => privateKeyMatches(privateKey, certificate));
	if (index < 0) throw new As2Error("INVALID_KEY", "the private key does not match the certificate");
	return {
		privateKey,
		certificate: certificates[index]!,
		chain: certificates.filter((_, i) => i !== index),
	};
}

function isEncryptedPem(key: string | Uint8Array): boolean {
	const text = typeof key === "string" ? key : looksLikePem(key) ? fromLatin1(key) : "";
	return text.includes("-----BEGIN ENCRYPTED PRIVATE KEY-----") || text.includes("Proc-Type: 4,ENCRYPTED");
}
