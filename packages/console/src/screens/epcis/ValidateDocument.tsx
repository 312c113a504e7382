/**
 * Validate an EPCIS document (`POST /v1/epcis/validate`): pasted, it goes as JSON; a chosen
 * file goes as multipart/form-data (streamed by the server, up to the plan's payload size)
 * with a progress bar. Rules default to all three.
 */
import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import { CheckboxGroup } from "../../components/CheckboxGroup.tsx";
import { Field } from "../../components/Field.tsx";
import { FormButtons } from "../../components/FormButtons.tsx";
import { FormError } from "../../components/FormError.tsx";
import { errorUnder, fieldsShownUnder } from "../../components/field-errors.ts";
import { upload } from "../../upload.ts";
import { useApiForm } from "../../use-api-form.ts";
import { EPCIS_RULES, type EpcisValidation } from "./epcis.ts";
import { ValidationReport } from "./ValidationReport.tsx";

const FIELDS = ["document", "validation_rules"];

export function ValidateDocument() {
	const [result, setResult] = useState<EpcisValidation | null>(null);
	const [progress, setProgress] = useState<number | null>(null);
	const { error, busy, submit } = useApiForm(
		async (form) => {
			setResult(null);
			const rules = form.getAll("validation_rules").map(String);
			const file = form.get("document_file");
			if (file instanceof File && file.size > 0) {
				const multipart = new FormData();
				// Rules before the document: the server applies them while it streams the document.
				for (const rule of rules) multipart.append("validation_rules", rule);
				multipart.append("document", file, file.name);
				setProgress(0);
				try {
					return await upload<EpcisValidation>("/v1/epcis/validate", multipart, setProgress);
				} finally {
					setProgress(null);
				}
			}
			return api.post<EpcisValidation>("/v1/epcis/validate", {
				document: String(form.get("document") ?? ""),
				validation_rules: rules,
			});
		},
		(answer) => setResult(answer),
	);
	return (
		<section class="stack" aria-labelledby="validate-heading">
			<form class="card form" aria-labelledby="validate-heading" onSubmit={submit}>
				<h2 id="validate-heading">Validate a document</h2>
				<Field
					label="Document"
					error={errorUnder(error, "document")}
					hint="Paste EPCIS 1.2 or 2.0 XML, or choose a file below."
				>
					{({ id, describedBy, invalid }) => (
						<textarea
							id={id}
							name="document"
							rows={8}
							spellcheck={false}
							class="mono"
							aria-describedby={describedBy}
							aria-invalid={invalid || undefined}
						/>
					)}
				</Field>
				<div class="form-row top">
					<Field
						label="Or upload a file"
						name="document_file"
						type="file"
						accept=".xml,application/xml,text/xml"
						hint="A chosen file is validated instead of the pasted text."
					/>
					<CheckboxGroup
						legend="Rules"
						name="validation_rules"
						options={EPCIS_RULES}
						checked={EPCIS_RULES.map(([rule]) => rule)}
						error={errorUnder(error, "validation_rules")}
					/>
				</div>
				{progress !== null ? <progress value={progress} max={1} aria-label="Upload progress" /> : null}
				<FormError error={error} fields={fieldsShownUnder(error, FIELDS)} />
				<FormButtons submitLabel="Validate" busy={busy} />
			</form>
			{result ? <ValidationReport result={result} /> : null}
		</section>
	);
}
