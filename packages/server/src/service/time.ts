/** The calendar month of an instant in UTC, `YYYY-MM`: the usage period. */
export function monthOf(instant: Date): string {
	return instant.toISOString().slice(0, 7);
}

export function addSeconds(instant: Date, seconds: number): Date {
	return new Date(instant.getTime() + seconds * 1000);
}
