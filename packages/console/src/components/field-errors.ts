/** The API's 422 keys are dotted paths (`permissions.0`): a list's control shows its items' errors too. */
import type { ApiError } from "../api.ts";

export function errorUnder(error: ApiError | null, name: string): string | undefined {
	if (!error) return undefined;
	const key = Object.keys(error.fields).find((field) => field === name || field.startsWith(`${name}.`));
	return key ? error.fields[key]?.[0] : undefined;
}

/** Every 422 key a form shows next to a control, for FormError's `fields`. */
export function fieldsShownUnder(error: ApiError | null, names: string[]): string[] {
	if (!error) return names;
	return Object.keys(error.fields).filter((field) => names.some((n) => field === n || field.startsWith(`${n}.`)));
}
