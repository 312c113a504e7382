/**
 * @module @as2kit/core — the AS2 protocol engine (RFC 4130): streaming MIME, CMS/S/MIME,
 * MIC, MDN and certificates, and EPCIS 1.2/2.0 XML validation. No network or file I/O: bytes and streams in, bytes and streams out.
 *
 * @example
 * const message = await pack({ payload, contentType: "application/edi-x12", from: "ME", to: "PARTNER",
 *   sign: { privateKey, certificate, digest: "sha256" }, encrypt: { certificates: [partnerCert], algorithm: "aes256" } });
 * const received = await unpack({ headers: message.headers, body: message.body.open(), identities: [partner] });
 */
export * from "./algorithms.ts";
export * from "./as2/index.ts";
export * from "./bytes/index.ts";
export * from "./certs/index.ts";
export * from "./cms/index.ts";
export {
	createDigest,
	type Digest,
	digestBytes,
	exportPrivateKeyPem,
	importPrivateKey,
	type PrivateKey,
	type PublicKey,
	publicKeyOfCertificate,
	randomBytes,
	rsaKeyBits,
} from "./crypto/index.ts";
export * from "./epcis/index.ts";
export * from "./errors/index.ts";
export * from "./mdn/index.ts";
export * from "./mime/index.ts";
