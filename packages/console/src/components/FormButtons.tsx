/** A form's buttons: the submit (disabled while the request runs) and, when given, Cancel. */
export function FormButtons(props: { submitLabel: string; busy?: boolean; onCancel?: () => void }) {
	return (
		<div class="page-actions">
			<button type="submit" class="button primary" disabled={props.busy}>
				{props.submitLabel}
			</button>
			{props.onCancel ? (
				<button type="button" class="button ghost" onClick={props.onCancel}>
					Cancel
				</button>
			) : null}
		</div>
	);
}
