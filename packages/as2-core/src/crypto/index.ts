export {
	CIPHER_CHUNK_SIZE,
	type CipherOptions,
	type ContentDecryptor,
	type ContentEncryptor,
	cipherChunks,
	createDecryptor,
	createEncryptor,
	isCipherAvailable,
	type StreamCipher,
} from "./cipher.ts";
export { createBufferedDigest, createDigest, type Digest, digestBytes, randomBytes } from "./digest.ts";
export { decodePkcs1v15, type KeyTransportScheme, type UnwrappedKey, unwrapKey, wrapKey } from "./key-transport.ts";
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
export { bmpPassword, decryptCbc, equalSecret, hmac, type Pkcs12KeyPurpose, pbkdf2, pkcs12Kdf } from "./pkcs12-pbe.ts";
export { rc2CbcDecrypt, rc2DecryptBlocks } from "./rc2.ts";
export {
	createStreamSigner,
	type SignatureCheck,
	type SignatureParameters,
	type StreamSigner,
	signBytes,
	signBytesAsync,
	verifyDigestSignature,
} from "./signature.ts";
export { deflateBytes, deflateChunks, type Inflation, inflateChunks, inflateSmall } from "./zlib.ts";
