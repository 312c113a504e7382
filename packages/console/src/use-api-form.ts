/**
 * A form that sends to the API: `submit` runs the action with the form's fields, keeps the
 * button disabled while it runs, and keeps the ApiError for `Field error={error?.field(name)}`.
 */
import { useState } from "preact/hooks";
import { ApiError } from "./api.ts";

export function useApiForm<T>(action: (form: FormData) => Promise<T>, onDone?: (result: T) => void) {
	const [error, setError] = useState<ApiError | null>(null);
	const [busy, setBusy] = useState(false);
	const submit = async (event: Event) => {
		event.preventDefault();
		const form = new FormData(event.currentTarget as HTMLFormElement);
		setBusy(true);
		setError(null);
		try {
			const result = await action(form);
			setBusy(false);
			onDone?.(result);
		} catch (failure) {
			setError(failure instanceof ApiError ? failure : new ApiError(0, "UNKNOWN", String(failure)));
			setBusy(false);
		}
	};
	return { error, busy, submit, setError };
}
