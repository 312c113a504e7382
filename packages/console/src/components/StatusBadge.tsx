/** A status word in a colour that says how it went; the word itself is the accessible text. */
const TONES: Record<string, "good" | "bad" | "warn" | "neutral" | "info"> = {
	delivered: "good",
	received: "good",
	processed: "good",
	active: "good",
	succeeded: "good",
	success: "good",
	valid: "good",
	passed: "good",
	failed: "bad",
	failing: "bad",
	error: "bad",
	rejected: "bad",
	expired: "bad",
	revoked: "bad",
	cancelled: "neutral",
	canceled: "neutral",
	inactive: "neutral",
	pending: "warn",
	queued: "info",
	sending: "info",
	sent: "info",
	retrying: "warn",
	in_progress: "info",
	awaiting_mdn: "warn",
	expiring: "warn",
};

export function StatusBadge({ status }: { status: string | null | undefined }) {
	const word = status ?? "unknown";
	return <span class={`badge badge-${TONES[word] ?? "neutral"}`}>{word.replaceAll("_", " ")}</span>;
}
