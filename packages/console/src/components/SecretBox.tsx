/** A secret the API shows once (an API key, a webhook signing secret), with a copy button. */
import { useState } from "preact/hooks";

export function SecretBox({ label, secret }: { label: string; secret: string }) {
	const [copied, setCopied] = useState(false);
	return (
		<section class="secret-box" aria-label={label}>
			<p class="secret-warning">
				<strong>{label}</strong>: copy it now. It is shown only once and cannot be retrieved later.
			</p>
			<div class="secret-row">
				<code class="secret-value">{secret}</code>
				<button
					type="button"
					class="button"
					onClick={async () => {
						await navigator.clipboard.writeText(secret);
						setCopied(true);
					}}
				>
					{copied ? "Copied" : "Copy"}
				</button>
			</div>
		</section>
	);
}
