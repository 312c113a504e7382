import * as v from "valibot";

/** A string of `min`–`max` characters, trimmed of surrounding spaces first. */
export const text = (min: number, max: number) =>
	v.pipe(
		v.string(),
		v.trim(),
		v.minLength(min, `must have at least ${min} character${min === 1 ? "" : "s"}`),
		v.maxLength(max, `must have at most ${max} characters`),
	);

export const email = v.pipe(
	v.string(),
	v.trim(),
	v.maxLength(254, "must have at most 254 characters"),
	v.email("must be an email address"),
);

/** An ISO 8601 instant with an offset or Z, as a Date. */
export const instant = v.pipe(
	v.string(),
	v.isoTimestamp("must be an ISO 8601 date-time with a time zone"),
	v.transform((value) => new Date(value)),
);
