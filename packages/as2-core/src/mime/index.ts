export { canonicalizeBytes, canonicalizeLineEndings, canonicalSize, isTextMediaType } from "./canonicalize.ts";
export { type ContentType, formatHeaderValue, parseContentType, parseHeaderParams } from "./content-type.ts";
export { decodeHeaderText } from "./decode-header-text.ts";
export { encodeHeaderText } from "./encode-header-text.ts";
export { type ParseMimeEntityOptions, parseMimeEntity, serializeMimeEntity } from "./entity.ts";
export { MimeHeaders, parseHeaderBlock, serializeHeaders } from "./header.ts";
export { isFieldName, isFieldValue } from "./header-field.ts";
export {
	type MultipartPart,
	multipartBoundary,
	type ReadMultipartOptions,
	readMultipart,
} from "./multipart.ts";
export { splitMultipart } from "./multipart-split.ts";
export { DEFAULT_MAX_HEADER_BYTES, type ReadHeaderBlockOptions, readHeaderBlock } from "./read-headers.ts";
export { suggestedFilename } from "./suggested-filename.ts";
export {
	base64EncodedSize,
	decodeTransferEncoding,
	decodeTransferEncodingBytes,
	encodeBase64,
	encodeBase64Bytes,
} from "./transfer-encoding.ts";
