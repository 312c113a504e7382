/**
 * A list screen's create flow: a button opens the form, and what the API created (with its
 * one-time secret) is kept to show until the next create or until it is revoked.
 */
import { useState } from "preact/hooks";

export function useCreateFlow<T>(onCreated: () => void) {
	const [creating, setCreating] = useState(false);
	const [created, setCreated] = useState<T | null>(null);
	return {
		creating,
		created,
		open: () => {
			setCreating(true);
			setCreated(null);
		},
		cancel: () => setCreating(false),
		done: (item: T) => {
			setCreated(item);
			setCreating(false);
			onCreated();
		},
		forget: () => setCreated(null),
	};
}
