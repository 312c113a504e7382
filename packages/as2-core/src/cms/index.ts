export { type CompressOptions, compress, type DecompressOptions, decompress } from "./compressed-data.ts";
export { type CmsContentKind, oidToContentKind, peekCmsContentType } from "./content-info.ts";
export {
	type DecryptIdentity,
	type DecryptOptions,
	type DecryptResult,
	decrypt,
	type EncryptOptions,
	encrypt,
	type Recipient,
} from "./enveloped-data.ts";
export {
	createDetachedSigner,
	type DetachedSigner,
	inspectSignedData,
	type SignatureInfo,
	type SignOptions,
	signDetached,
	signDetachedAsync,
	type VerifyOptions,
	verifyDetached,
} from "./signed-data.ts";
