export { type BerHeader, decodeHeader, isTag, MAX_BER_DEPTH, MAX_HEADER_LENGTH, TAG_CLASS } from "./ber-header.ts";
export { BerReader } from "./ber-reader.ts";
export { toDefiniteLength } from "./definite-length.ts";
export {
	contextTag,
	derAlgorithmIdentifier,
	derExplicit,
	derHeader,
	derInteger,
	derLength,
	derNull,
	derOctetString,
	derOid,
	derSequence,
	derSetOf,
	derTlv,
	TAG,
	tlvSize,
} from "./der.ts";
export { decodeOid, encodeOid } from "./oid.ts";
export { childrenOf, expectTag, parseTlv, readTlv, type Tlv, tlvOid, tlvSmallInteger } from "./tlv.ts";
