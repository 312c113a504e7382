import { As2Error } from "@as2kit/core";
import { validator } from "hono-openapi";
import type * as v from "valibot";
import { toFieldErrors } from "./field-errors.ts";

/** Validates and documents the query string; a failed check is a 422 naming the parameters. */
export function query<S extends v.GenericSchema>(schema: S) {
	return validator("query", schema, (result) => {
		if (!result.success) {
			const fieldErrors = toFieldErrors(result.error as readonly v.BaseIssue<unknown>[]);
			const [field, messages] = Object.entries(fieldErrors)[0] ?? ["query", ["is invalid"]];
			throw new As2Error("VALIDATION_FAILED", `${field} ${messages[0]}`, { fieldErrors });
		}
	});
}
