/** A failed load, said plainly, with the API's message. */
import type { ApiError } from "../api.ts";

export function ErrorNote({ error }: { error: ApiError | Error | null }) {
	if (!error) return null;
	return (
		<p class="error-note" role="alert">
			{error.message}
		</p>
	);
}

/** A list's failed load, unless the API named filter fields: those errors sit under the fields. */
export function ListErrorNote({ error }: { error: ApiError | null }) {
	return Object.keys(error?.fields ?? {}).length > 0 ? null : <ErrorNote error={error} />;
}
