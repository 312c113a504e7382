export { type CertificateInfo, describeCertificate } from "./describe-certificate.ts";
export { checkSigningKeySize, isSigningKeySizeAllowed } from "./key-size.ts";
export { parseCertificates } from "./parse-certificates.ts";
export { type Identity, parsePkcs12 } from "./pkcs12.ts";
export { type IdentityInput, readIdentity } from "./read-identity.ts";
export { type GeneratedIdentity, generateSelfSigned, type SelfSignedOptions } from "./self-signed.ts";
export { checkValidity } from "./validity.ts";
