/**
 * Uncontrolled controls for the partner forms: they start from the partner's values
 * (`defaultValue`, `selected`, `defaultChecked`) and keep what the user typed across the
 * re-renders of a submit, so a 422 leaves the form as the user left it, errors beside it.
 */
import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";
import { Field } from "../../components/Field.tsx";

export function Choice(props: {
	label: string;
	name: string;
	options: [string, string][];
	initial: string;
	error?: string | undefined;
	hint?: ComponentChildren;
}) {
	return (
		<Field label={props.label} error={props.error} hint={props.hint}>
			{({ id, describedBy, invalid }) => (
				<select id={id} name={props.name} aria-describedby={describedBy} aria-invalid={invalid ? "true" : undefined}>
					{props.options.map(([value, label]) => (
						<option key={value} value={value} selected={value === props.initial}>
							{label}
						</option>
					))}
				</select>
			)}
		</Field>
	);
}

/** A checkbox whose label is its name; FormData carries `name=on` when it is ticked. */
export function Toggle(props: {
	label: string;
	name: string;
	initial: boolean;
	hint?: ComponentChildren;
	error?: string | undefined;
}) {
	const id = useId();
	const hintId = props.hint ? `${id}-hint` : undefined;
	const errorId = props.error ? `${id}-error` : undefined;
	const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
	return (
		<div class={props.error ? "toggle has-error" : "toggle"}>
			<input
				id={id}
				type="checkbox"
				name={props.name}
				defaultChecked={props.initial}
				aria-describedby={describedBy}
				aria-invalid={props.error ? "true" : undefined}
			/>
			<label for={id}>{props.label}</label>
			{props.hint ? (
				<p class="field-hint" id={hintId}>
					{props.hint}
				</p>
			) : null}
			{props.error ? (
				<p class="field-error" id={errorId}>
					{props.error}
				</p>
			) : null}
		</div>
	);
}

/** A titled group of controls (`fieldset` + `legend`: screen readers name the group). */
export function FieldGroup(props: { legend: string; lead?: ComponentChildren; children?: ComponentChildren }) {
	return (
		<fieldset class="field-group">
			<legend>{props.legend}</legend>
			{props.lead ? <p class="field-hint">{props.lead}</p> : null}
			{props.children ? <div class="form-row">{props.children}</div> : null}
		</fieldset>
	);
}
