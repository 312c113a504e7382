/**
 * Retry, resend and cancel, each behind a confirmation (interface spec, message actions):
 * retry a failed or waiting outbound message with the same Message-ID, resend its payload as a
 * new message, cancel one not sent yet.
 */
import { useState } from "preact/hooks";
import { ApiError, api } from "../../api.ts";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { navigate } from "../../router.tsx";
import type { Message } from "../../types.ts";

type Action = "retry" | "resend" | "cancel";

const TEXT: Record<Action, { label: string; title: string; body: string; danger?: boolean }> = {
	retry: {
		label: "Retry",
		title: "Retry this message now?",
		body: "The partner receives it again with the same AS2 Message-ID, so its duplicate detection keeps it from processing the message twice.",
	},
	resend: {
		label: "Resend",
		title: "Resend as a new message?",
		body: "The payload is sent again as a new message with a new AS2 Message-ID: the partner will process it as new.",
	},
	cancel: {
		label: "Cancel message",
		title: "Cancel this message?",
		body: "It will not be sent. This cannot be undone; you can resend its payload later.",
		danger: true,
	},
};

export function availableActions(message: Message): Action[] {
	if (message.direction !== "outbound") return [];
	const actions: Action[] = [];
	// Retry: a failed message, or one waiting for its next attempt or its scheduled time.
	const waiting = Boolean(message.next_attempt_at) || (message.status === "queued" && Boolean(message.scheduled_at));
	if (message.status === "failed" || waiting) actions.push("retry");
	if (message.status !== "queued" && message.status !== "processing") actions.push("resend");
	// Cancel: not while a worker may be sending it (409 INVALID_MESSAGE_STATE).
	if (message.status === "queued" || message.next_attempt_at) actions.push("cancel");
	return actions;
}

export function MessageActions({ message, onDone }: { message: Message; onDone: (message: Message) => void }) {
	const [open, setOpen] = useState<Action | null>(null);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<string | null>(null);
	const run = async (action: Action) => {
		setBusy(true);
		setError(null);
		try {
			const answer = await api.post<{ data: Message }>(`/v1/messages/${message.id}/${action}`);
			setOpen(null);
			if (action === "resend") navigate(`messages/${answer.data.id}`);
			else onDone(answer.data);
		} catch (failure) {
			setError(failure instanceof ApiError ? failure.message : String(failure));
		} finally {
			setBusy(false);
		}
	};
	const actions = availableActions(message);
	if (actions.length === 0) return null;
	return (
		<>
			{actions.map((action) => (
				<button
					key={action}
					type="button"
					class={action === "retry" ? "button primary" : "button"}
					onClick={() => setOpen(action)}
				>
					{TEXT[action].label}
				</button>
			))}
			{error ? (
				<p class="form-error" role="alert">
					{error}
				</p>
			) : null}
			{open ? (
				<ConfirmDialog
					open
					title={TEXT[open].title}
					confirmLabel={TEXT[open].label}
					danger={TEXT[open].danger}
					busy={busy}
					onConfirm={() => run(open)}
					onCancel={() => setOpen(null)}
				>
					<p>{TEXT[open].body}</p>
				</ConfirmDialog>
			) : null}
		</>
	);
}
