export { As2Error, type As2ErrorOptions, isAs2Error, toAs2Error, toDisposition } from "./as2-error.ts";
export {
	type DispositionModifier,
	ERROR_CODES,
	type ErrorCode,
	type ErrorSpec,
	type ErrorType,
} from "./error-codes.ts";
