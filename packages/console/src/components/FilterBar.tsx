/**
 * The filters of a list as a form: each control is named after the API's query parameter, so
 * submitting gives the query as it is; a 422 about a parameter shows next to its control.
 */
import type { ComponentChildren } from "preact";

export function FilterBar(props: {
	label: string;
	onApply: (filters: Record<string, string>) => void;
	children: ComponentChildren;
}) {
	const submit = (event: Event) => {
		event.preventDefault();
		const filters: Record<string, string> = {};
		for (const [name, value] of new FormData(event.currentTarget as HTMLFormElement)) {
			if (typeof value === "string" && value.trim() !== "") filters[name] = value.trim();
		}
		props.onApply(filters);
	};
	return (
		<form class="card filters" aria-label={props.label} onSubmit={submit} onChange={submit}>
			{props.children}
			<button type="submit" class="button">
				Apply filters
			</button>
		</form>
	);
}
