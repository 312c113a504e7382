/** A download through the API with the auth header (download.ts): never a link with a token. */
import { useState } from "preact/hooks";
import { downloadFile } from "../../download.ts";

export function DownloadButton(props: { path: string; fileName: string; label: string; description?: string }) {
	const [error, setError] = useState<string | null>(null);
	return (
		<>
			<button
				type="button"
				class="button ghost small"
				aria-label={props.description}
				onClick={() => downloadFile(props.path, props.fileName).catch((failure: Error) => setError(failure.message))}
			>
				{props.label}
			</button>
			{error ? (
				<span class="field-error" role="alert">
					{error}
				</span>
			) : null}
		</>
	);
}
