import { validator } from "hono-openapi";
import type * as v from "valibot";
import { schemaError } from "./field-errors.ts";

/** Validates and documents the query string; a failed check is a 422 naming the parameters. */
export function query<S extends v.GenericSchema>(schema: S) {
	return validator("query", schema, (result) => {
		if (!result.success) throw schemaError(result.error as readonly v.BaseIssue<unknown>[]);
	});
}
