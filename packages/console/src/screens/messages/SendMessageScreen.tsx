/**
 * Send a message: partner, file (multipart `file` part, streamed by the server), content type
 * and subject, with an upload progress bar (upload.ts). The API's field errors show next to
 * their fields; on success the new message opens.
 */
import { useState } from "preact/hooks";
import { ApiError } from "../../api.ts";
import { EmptyState } from "../../components/EmptyState.tsx";
import { Field } from "../../components/Field.tsx";
import { FormError } from "../../components/FormError.tsx";
import { Page } from "../../components/Page.tsx";
import { SelectField } from "../../components/SelectField.tsx";
import { Link, navigate } from "../../router.tsx";
import type { Message } from "../../types.ts";
import { upload } from "../../upload.ts";
import { usePartnerPicker } from "../../use-partners.ts";

/** The types the API sends (interface spec, "Content type and encoding mapping"). */
const CONTENT_TYPES: [string, string][] = [
	["application/edi-x12", "X12 (application/edi-x12)"],
	["application/edifact", "EDIFACT (application/edifact)"],
	["application/edi-consent", "EDI consent (application/edi-consent)"],
	["application/xml", "XML"],
	["application/json", "JSON"],
	["text/plain", "Plain text"],
	["text/csv", "CSV"],
	["application/pdf", "PDF"],
	["application/zip", "ZIP"],
	["image/png", "PNG image"],
	["image/jpeg", "JPEG image"],
];
const FIELDS = ["partner_id", "file", "content_type", "subject"];

/** A guess from the file name, which the user can change. */
function guessContentType(name: string): string | null {
	const extension = name.slice(name.lastIndexOf(".") + 1).toLowerCase();
	const byExtension: Record<string, string> = {
		x12: "application/edi-x12",
		edi: "application/edi-x12",
		edifact: "application/edifact",
		xml: "application/xml",
		json: "application/json",
		txt: "text/plain",
		csv: "text/csv",
		pdf: "application/pdf",
		zip: "application/zip",
		png: "image/png",
		jpg: "image/jpeg",
		jpeg: "image/jpeg",
	};
	return byExtension[extension] ?? null;
}

export function SendMessageScreen() {
	const partners = usePartnerPicker();
	const [contentType, setContentType] = useState(CONTENT_TYPES[0]![0]);
	const [progress, setProgress] = useState<number | null>(null);
	const [error, setError] = useState<ApiError | null>(null);
	const submit = async (event: Event) => {
		event.preventDefault();
		const form = new FormData(event.currentTarget as HTMLFormElement);
		const file = form.get("file");
		if (!(file instanceof File) || file.size === 0) {
			setError(new ApiError(422, "VALIDATION_FAILED", "Choose a file to send", { file: ["choose a file to send"] }));
			return;
		}
		if (!String(form.get("subject") ?? "").trim()) form.delete("subject");
		// The fields before the file: the server reads the form as a stream.
		const ordered = new FormData();
		for (const [name, value] of form) if (name !== "file") ordered.append(name, value);
		ordered.append("file", file, file.name);
		setError(null);
		setProgress(0);
		try {
			const answer = await upload<{ data: Message }>("/v1/messages", ordered, setProgress);
			navigate(`messages/${answer.data.id}`);
		} catch (failure) {
			setError(failure instanceof ApiError ? failure : new ApiError(0, "UNKNOWN", String(failure)));
			setProgress(null);
		}
	};
	return (
		<Page title="Send a message" lead="The file is signed, encrypted and sent with the partner's settings.">
			{partners.loaded && partners.rows.length === 0 ? (
				<EmptyState title="Add a partner first">
					<p>
						Messages go to a trading partner. <Link to="partners">Add a partner</Link>, then come back to send.
					</p>
				</EmptyState>
			) : (
				<form class="card form narrow" onSubmit={submit} noValidate>
					<SelectField
						label="Partner"
						name="partner_id"
						required
						error={error?.field("partner_id")}
						options={partners.rows.map((p): [string, string] => [p.id, `${p.name} (${p.as2_id})`])}
					/>
					<Field label="File" error={error?.field("file")}>
						{({ id, describedBy, invalid }) => (
							<input
								id={id}
								name="file"
								type="file"
								required
								aria-describedby={describedBy}
								aria-invalid={invalid ? "true" : undefined}
								onChange={(event) => {
									const chosen = event.currentTarget.files?.[0];
									const guess = chosen ? guessContentType(chosen.name) : null;
									if (guess) setContentType(guess);
								}}
							/>
						)}
					</Field>
					<Field label="Content type" error={error?.field("content_type")}>
						{({ id, describedBy, invalid }) => (
							<select
								id={id}
								name="content_type"
								value={contentType}
								aria-describedby={describedBy}
								aria-invalid={invalid ? "true" : undefined}
								onChange={(event) => setContentType(event.currentTarget.value)}
							>
								{CONTENT_TYPES.map(([value, label]) => (
									<option key={value} value={value}>
										{label}
									</option>
								))}
							</select>
						)}
					</Field>
					<Field label="Subject" name="subject" maxLength={255} hint="Optional." error={error?.field("subject")} />
					{progress !== null ? (
						<div class="field">
							<label for="upload-progress">Uploading</label>
							<progress id="upload-progress" max={1} value={progress}>
								{Math.round(progress * 100)}%
							</progress>
						</div>
					) : null}
					<FormError error={error} fields={FIELDS} />
					<div class="button-row">
						<button type="submit" class="button primary" disabled={progress !== null}>
							Send message
						</button>
						<Link class="button ghost" to="messages">
							Cancel
						</Link>
					</div>
				</form>
			)}
		</Page>
	);
}
