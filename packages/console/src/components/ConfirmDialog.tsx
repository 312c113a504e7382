/**
 * A confirmation in a modal `<dialog>`: showModal() makes the rest of the page inert (focus
 * stays inside) and Escape cancels. Focus starts on Cancel, the safe choice.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef } from "preact/hooks";

export function ConfirmDialog(props: {
	open: boolean;
	title: string;
	children?: ComponentChildren;
	confirmLabel: string;
	danger?: boolean;
	busy?: boolean;
	onConfirm: () => void;
	onCancel: () => void;
}) {
	const dialog = useRef<HTMLDialogElement>(null);
	const cancel = useRef<HTMLButtonElement>(null);
	const titleId = useId();
	useEffect(() => {
		const element = dialog.current;
		if (!element) return;
		if (props.open && !element.open) {
			element.showModal();
			cancel.current?.focus();
		} else if (!props.open && element.open) element.close();
	}, [props.open]);
	return (
		<dialog ref={dialog} class="dialog" aria-labelledby={titleId} onCancel={props.onCancel}>
			<h2 id={titleId}>{props.title}</h2>
			<div class="dialog-body">{props.children}</div>
			<div class="dialog-actions">
				<button ref={cancel} type="button" class="button ghost" onClick={props.onCancel}>
					Cancel
				</button>
				<button
					type="button"
					class={props.danger ? "button danger" : "button primary"}
					disabled={props.busy}
					onClick={props.onConfirm}
				>
					{props.confirmLabel}
				</button>
			</div>
		</dialog>
	);
}
