/**
 * A labelled form control with the API's error for that field under it (`ApiError.field(name)`),
 * tied to the control by aria-describedby and aria-invalid.
 */
import type { ComponentChildren, JSX } from "preact";
import { useId } from "preact/hooks";

type FieldProps = {
	label: string;
	/** The API's error for this field, if any. */
	error?: string;
	hint?: ComponentChildren;
	/** The control; by default an input with the rest of the props. */
	children?: (ids: { id: string; describedBy: string | undefined; invalid: boolean }) => ComponentChildren;
} & Omit<JSX.InputHTMLAttributes<HTMLInputElement>, "children">;

export function Field({ label, error, hint, children, ...input }: FieldProps) {
	const id = useId();
	const hintId = hint ? `${id}-hint` : undefined;
	const errorId = error ? `${id}-error` : undefined;
	const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
	const ids = { id, describedBy, invalid: Boolean(error) };
	return (
		<div class={error ? "field has-error" : "field"}>
			<label for={id}>{label}</label>
			{children ? (
				children(ids)
			) : (
				<input id={id} aria-describedby={describedBy} aria-invalid={error ? "true" : undefined} {...input} />
			)}
			{hint ? (
				<p class="field-hint" id={hintId}>
					{hint}
				</p>
			) : null}
			{error ? (
				<p class="field-error" id={errorId}>
					{error}
				</p>
			) : null}
		</div>
	);
}
