export { type BuildMdnOptions, type BuiltMdn, buildMdn, buildMdnAsync } from "./build-mdn.ts";
export { isMdnEntity, MDN_DETECTION_BYTES } from "./detect-mdn.ts";
export {
	type Disposition,
	formatDisposition,
	isPositiveDisposition,
	type ParsedDisposition,
	parseDisposition,
} from "./disposition.ts";
export { type MdnMatch, matchMdn, type ParsedMdn, type ParseMdnOptions, parseMdn } from "./parse-mdn.ts";
