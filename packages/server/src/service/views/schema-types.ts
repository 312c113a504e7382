import * as v from "valibot";

/** ISO 8601 UTC instant with microseconds, as `formatInstant` writes it. */
export const instantSchema = v.pipe(
	v.string(),
	v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
	v.description("ISO 8601 UTC with microseconds, e.g. 2026-11-23T12:16:18.123000Z"),
);
export const nullableInstantSchema = v.nullable(instantSchema);

export const idSchema = (prefix: string) =>
	v.pipe(v.string(), v.regex(new RegExp(`^${prefix}\\d{6,}$`)), v.description(`\`${prefix}\` identifier`));
