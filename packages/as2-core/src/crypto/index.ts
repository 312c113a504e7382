export { createDigest, type Digest, digestBytes, randomBytes } from "./digest.ts";
export {
	exportPrivateKeyPem,
	importPrivateKey,
	importPublicKeySpki,
	keyMatchesCertificate,
	type PrivateKey,
	type PublicKey,
	publicKeyOfCertificate,
	rsaKeyBits,
} from "./keys.ts";
