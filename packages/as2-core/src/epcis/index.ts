export { CBV_VALUES, type CbvClassification, type CbvForm, type CbvKind, classifyCbv, normalizeCbv } from "./cbv.ts";
export { detectEpcisDocument } from "./detect-epcis-document.ts";
export { checkEpcUri, type EpcUriCheck, type EpcUriKind } from "./epc-uri.ts";
export { DEFAULT_EPCIS_LIMITS } from "./limits.ts";
export { readEpcisEvents } from "./read-epcis-events.ts";
export {
	EPCIS_RULES,
	type EpcisEvent,
	type EpcisInput,
	type EpcisIssue,
	type EpcisLimits,
	type EpcisQuantityElement,
	type EpcisRootName,
	type EpcisRule,
	type EpcisValidationResult,
	type EpcisVersion,
	type ReadEpcisEventsOptions,
	type ValidateEpcisOptions,
} from "./types.ts";
export { parseEpcisRules, validateEpcis } from "./validate-epcis.ts";
