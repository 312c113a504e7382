import * as v from "valibot";

/** `true`/`false` (also 1/0) in a query string. */
export const booleanParam = v.pipe(
	v.picklist(["true", "false", "1", "0"], "must be true or false"),
	v.transform((value) => value === "true" || value === "1"),
);

export const searchParam = v.pipe(
	v.string(),
	v.minLength(1, "must have at least 1 character"),
	v.maxLength(255, "must have at most 255 characters"),
);
