import { isAs2Error } from "../errors/index.ts";
import { EXIT, exitCodeOf } from "./exit-codes.ts";

export function printJson(value: unknown): void {
	console.log(JSON.stringify(value, null, 2));
}

const GENERIC_CODE = { [EXIT.usage]: "USAGE", [EXIT.input]: "INPUT" } as Record<number, string>;

/**
 * Failures as JSON on stdout: the engine's stable code and, for a refused message, the MDN
 * disposition a receiver would send; `USAGE` or `INPUT` (or the engine's code of an
 * unreadable key) otherwise.
 */
export function printError(error: unknown): void {
	const cause = (error as { cause?: unknown })?.cause;
	const engineError = isAs2Error(error) ? error : isAs2Error(cause) ? cause : undefined;
	const code = engineError?.code ?? GENERIC_CODE[exitCodeOf(error)] ?? "INPUT";
	printJson({
		error: {
			code,
			message: (error as Error)?.message ?? String(error),
			...(isAs2Error(error) && error.disposition ? { disposition: `processed/error: ${error.disposition}` } : {}),
		},
	});
}
