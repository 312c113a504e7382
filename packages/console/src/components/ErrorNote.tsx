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
