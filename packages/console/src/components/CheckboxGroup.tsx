/**
 * A named group of checkboxes for an API field that takes a list (permissions, event kinds):
 * a fieldset whose legend names the group, one checkbox per value under the field's name, and
 * the API's error for the list (or one of its items) under it, tied by aria-describedby.
 */
import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";

export function CheckboxGroup(props: {
	legend: string;
	name: string;
	options: [value: string, label: string][];
	/** Values checked when the form first renders. */
	checked?: string[];
	error?: string;
	hint?: ComponentChildren;
}) {
	const id = useId();
	const hintId = props.hint ? `${id}-hint` : undefined;
	const errorId = props.error ? `${id}-error` : undefined;
	return (
		<fieldset
			class={props.error ? "field checkbox-group has-error" : "field checkbox-group"}
			aria-describedby={[hintId, errorId].filter(Boolean).join(" ") || undefined}
		>
			<legend>{props.legend}</legend>
			{props.hint ? (
				<p class="field-hint" id={hintId}>
					{props.hint}
				</p>
			) : null}
			<div class="checkbox-options">
				{props.options.map(([value, label]) => (
					<label key={value} class="checkbox">
						<input type="checkbox" name={props.name} value={value} defaultChecked={props.checked?.includes(value)} />
						<span>{label}</span>
					</label>
				))}
			</div>
			{props.error ? (
				<p class="field-error" id={errorId}>
					{props.error}
				</p>
			) : null}
		</fieldset>
	);
}
