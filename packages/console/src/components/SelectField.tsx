/** A labelled select with the API's error for it; options as `[value, label]`, "" for "any". */
import { Field } from "./Field.tsx";

export function SelectField(props: {
	label: string;
	name: string;
	options: [string, string][];
	value?: string;
	error?: string;
	required?: boolean;
}) {
	return (
		<Field label={props.label} error={props.error}>
			{({ id, describedBy, invalid }) => (
				<select
					id={id}
					name={props.name}
					value={props.value}
					required={props.required}
					aria-describedby={describedBy}
					aria-invalid={invalid ? "true" : undefined}
				>
					{props.options.map(([value, label]) => (
						<option key={value} value={value}>
							{label}
						</option>
					))}
				</select>
			)}
		</Field>
	);
}
