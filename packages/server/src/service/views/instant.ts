/**
 * ISO 8601 UTC with microseconds and a trailing Z, as the spec's responses carry them:
 * `2026-11-23T12:16:18.123000Z`. JavaScript instants have milliseconds, hence the zeros.
 */
export function formatInstant(instant: Date): string {
	return `${instant.toISOString().slice(0, 23)}000Z`;
}

export function formatOptionalInstant(instant: Date | null | undefined): string | null {
	return instant ? formatInstant(instant) : null;
}
