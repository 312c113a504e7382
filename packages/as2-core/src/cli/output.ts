import { isAs2Error } from "../errors/index.ts";

export function printJson(value: unknown): void {
	console.log(JSON.stringify(value, null, 2));
}

/** Failures as JSON with the stable code and the MDN disposition a receiver would send. */
export function printError(error: unknown): void {
	if (isAs2Error(error)) {
		printJson({
			error: {
				code: error.code,
				message: error.message,
				...(error.disposition ? { disposition: `processed/error: ${error.disposition}` } : {}),
			},
		});
	} else {
		printJson({ error: { code: "USAGE", message: (error as Error)?.message ?? String(error) } });
	}
}
