import * as v from "valibot";

const DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+\- ]\d{2}(?::?\d{2})?))?$/;

/**
 * An ISO 8601 date (`2026-03-01`, midnight UTC) or date-time with a zone
 * (`2026-03-01T09:00:00Z`, `…+01:00`, with or without seconds and fractions), checked against
 * the calendar. A `+` left unencoded in a query string arrives as a space: read as `+`.
 */
export function parseDateTime(value: string): Date | null {
	const match = DATE_TIME.exec(value);
	if (!match) return null;
	const [, year, month, day, hours, minutes, seconds, fraction, zone] = match;
	const date = new Date(0);
	date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
	if (date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day)) return null;
	if (hours === undefined) return date;
	if (Number(hours) > 23 || Number(minutes) > 59 || Number(seconds ?? 0) > 59) return null;
	date.setUTCHours(
		Number(hours),
		Number(minutes),
		Number(seconds ?? 0),
		Number((fraction ?? "0").padEnd(3, "0").slice(0, 3)),
	);
	if (zone === "Z" || zone === "z") return date;
	const offsetHours = Number(zone!.slice(1, 3));
	const offsetMinutes = Number(zone!.slice(3).replace(":", "") || 0);
	if (offsetHours > 23 || offsetMinutes > 59) return null;
	const offset = (offsetHours * 60 + offsetMinutes) * (zone!.startsWith("-") ? -1 : 1);
	return new Date(date.getTime() - offset * 60_000);
}

/** A query parameter holding an ISO 8601 date or date-time (see `parseDateTime`), as a Date. */
export const dateTimeParam = v.pipe(
	v.string(),
	v.check(
		(value) => parseDateTime(value) !== null,
		"must be an ISO 8601 date (2026-03-01) or date-time with a time zone (2026-03-01T09:00:00Z)",
	),
	v.transform((value) => parseDateTime(value)!),
);
