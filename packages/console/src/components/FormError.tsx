/** The error of a whole form (not tied to one field): an alert above its buttons. */
import type { ApiError } from "../api.ts";

export function FormError({ error, fields = [] }: { error: ApiError | null; fields?: string[] }) {
	if (!error) return null;
	// Field errors are shown next to their fields; repeat here only what no field shows.
	const shownElsewhere =
		Object.keys(error.fields).length > 0 && Object.keys(error.fields).every((f) => fields.includes(f));
	if (shownElsewhere) return null;
	return (
		<p class="form-error" role="alert">
			{error.message}
		</p>
	);
}
